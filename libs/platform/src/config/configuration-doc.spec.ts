import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// docs/configuration.md documents both services; this keeps it in step with their configuration
// schemas: every variable a schema reads is documented in that service's table, and nothing else.
// The schemas belong to the apps, which a library may not import; the test loads them by path (each
// app's config module exports its zod object as MANAGER_ENV_SCHEMA / WORKER_ENV_SCHEMA).
const ROOT = join(__dirname, '..', '..', '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

const APPS = [
  { section: 'Manager', module: 'apps/manager/src/config/manager.config.ts', exportName: 'MANAGER_ENV_SCHEMA' },
  { section: 'Worker', module: 'apps/worker/src/config/worker.config.ts', exportName: 'WORKER_ENV_SCHEMA' },
] as const;

/** Backticked variable names in the first column of the tables under `## <section>`. */
function documentedVariables(section: string): string[] {
  const body = DOC.split(/^## /m).find((part) => part.startsWith(`${section}\n`));
  if (!body) throw new Error(`docs/configuration.md has no "## ${section}" section`);
  const names: string[] = [];
  for (const line of body.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!cell) continue;
    for (const match of cell.matchAll(/`([^`]+)`/g)) {
      // Patterns such as DATASOURCE_<X>_* are read outside the schema and documented separately.
      if (/^[A-Z][A-Z0-9_]*$/.test(match[1])) names.push(match[1]);
    }
  }
  return names;
}

function schemaVariables(module: string, exportName: string): string[] | undefined {
  const path = join(ROOT, module);
  if (!existsSync(path)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by path on purpose, see above
  const schema = (require(path) as Record<string, { shape?: Record<string, unknown> } | undefined>)[exportName];
  return schema?.shape ? Object.keys(schema.shape) : undefined;
}

describe('docs/configuration.md', () => {
  describe.each(APPS)('$section table', ({ section, module, exportName }) => {
    const documented = documentedVariables(section);

    it('lists each variable once', () => {
      expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
    });

    it(`documents exactly the variables of ${exportName}`, () => {
      const read = schemaVariables(module, exportName);
      if (read === undefined) throw new Error(`${module} does not export ${exportName} as a zod object`);
      expect({ undocumented: read.filter((v) => !documented.includes(v)), notRead: documented.filter((v) => !read.includes(v)) })
        .toEqual({ undocumented: [], notRead: [] });
    });
  });

  it('never mentions internal planning documents', () => {
    expect(DOC).not.toMatch(/shared\/spec|spec\/|manager-api\.md|worker-engine\.md/);
  });
});
