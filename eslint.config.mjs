// Lint: typescript-eslint's type-checked rules, plus the architecture's import directions
// (docs/architecture.md, "Import rules"). The engine boundary is also enforced by libs/engine/test/boundary.spec.ts,
// because lint sees neither require() nor import().
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';

/**
 * no-restricted-imports for one app: never the apps in `never`, no path inside another workspace
 * (`@fetcher/manager/src/...`, `.../libs/...`), no test server; `@fetcher/manager/testing` and
 * `@fetcher/platform/testing` in specs (and the app's src/testing/) only.
 */
function appImportRules(app, never) {
  const patterns = (specs) => [
    ...(never.length > 0 ? [{ group: never.flatMap((name) => [name, `${name}/**`]), message: 'Apps never import each other; only apps/standalone embeds the Manager and the Worker.' }] : []),
    {
      group: ['@fetcher/*/src', '@fetcher/*/src/**', '@fetcher/*/dist', '@fetcher/*/dist/**', '**/libs/**', '**/apps/**'],
      message: 'Import other workspaces by package name, never their internals (docs/architecture.md, "Import rules").',
    },
    {
      group: ['@fetcher/manager/*', '@fetcher/worker/*', ...(specs ? ['!@fetcher/manager/testing'] : [])],
      message: 'An app is imported only through its public entry (src/index.ts); @fetcher/manager/testing is for specs.',
    },
    { group: ['@fetcher/mongo-test-server'], message: 'The Mongo test server is test infrastructure only.' },
    ...(specs ? [] : [{ group: ['@fetcher/platform/testing'], message: '@fetcher/platform/testing (fault injection) is for specs and src/testing/ only.' }]),
  ];
  const files = [`apps/${app}/**/*.ts`];
  const specs = [`apps/${app}/**/*.spec.ts`, `apps/${app}/**/*.int-spec.ts`, `apps/${app}/src/testing/**/*.ts`];
  return [
    { files, ignores: specs, rules: { 'no-restricted-imports': ['error', { patterns: patterns(false) }] } },
    { files: specs, rules: { 'no-restricted-imports': ['error', { patterns: patterns(true) }] } },
  ];
}

const IO_BUILTINS = ['fs', 'net', 'tls', 'http', 'https', 'http2', 'dgram', 'dns', 'child_process', 'cluster', 'worker_threads', 'module', 'vm'];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program for every file: nested tsconfigs (examples/, bench/) resolve @fetcher/* through
      // built dist/ folders, which a fresh clone does not have yet; the root config maps them to src.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { boundaries },
    settings: {
      'boundaries/elements': [
        { type: 'engine', pattern: 'libs/engine' },
        { type: 'connectors', pattern: 'libs/connectors' },
        { type: 'platform', pattern: 'libs/platform' },
        { type: 'contracts', pattern: 'libs/contracts' },
        { type: 'app', pattern: 'apps/*', capture: ['app'] },
        { type: 'tool', pattern: 'tools/*' },
        { type: 'e2e', pattern: 'test/e2e' },
        { type: 'bench', pattern: 'bench' },
      ],
      'boundaries/include': ['apps/**', 'libs/**', 'tools/**', 'test/**', 'bench/**'],
      'import/resolver': { node: { extensions: ['.ts', '.js'] } },
    },
    rules: {
      // Relative imports across elements: libs never reach into apps, apps never into each other.
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            { from: { element: { type: 'engine' } }, disallow: { to: { element: { types: { anyOf: ['connectors', 'platform', 'contracts', 'app', 'tool', 'e2e', 'bench'] } } } } },
            { from: { element: { type: 'connectors' } }, disallow: { to: { element: { types: { anyOf: ['platform', 'contracts', 'app', 'tool', 'e2e', 'bench'] } } } } },
            { from: { element: { type: 'platform' } }, disallow: { to: { element: { types: { anyOf: ['engine', 'connectors', 'contracts', 'app', 'tool', 'e2e', 'bench'] } } } } },
            // The Manager–Worker contracts build on the engine's types and the platform, and on nothing an app holds.
            { from: { element: { type: 'contracts' } }, disallow: { to: { element: { types: { anyOf: ['connectors', 'app', 'tool', 'e2e', 'bench'] } } } } },
            { from: { element: { type: 'app' } }, disallow: { to: { element: { types: { anyOf: ['app', 'tool', 'e2e', 'bench'] } } } } },
            { from: { element: { type: 'app', captured: { app: '{{ from.captured.app }}' } } }, allow: { to: { element: { type: 'app', captured: { app: '{{ from.captured.app }}' } } } } },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'No default exports: use a named export (docs/architecture.md, "Import rules").' }],
    },
  },
  {
    // Package-name imports, which the element rules above cannot see.
    files: ['libs/connectors/**/*.ts', 'libs/platform/**/*.ts', 'tools/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@fetcher/manager', '@fetcher/worker', '**/apps/**'], message: 'Libraries never import apps.' },
        { group: ['@fetcher/*/src/**', '@fetcher/*/dist/**'], message: 'Import libraries by package name, not their internals.' },
        { group: ['@fetcher/contracts'], message: 'Only the apps use the Manager–Worker contracts (docs/architecture.md, "Import rules").' },
      ] }],
    },
  },
  {
    // The contracts between the Manager and the Worker: the engine's types, the platform, the MongoDB driver and zod.
    files: ['libs/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@fetcher/manager', '@fetcher/manager/**', '@fetcher/worker', '@fetcher/worker/**', '@fetcher/standalone', '@fetcher/cli', '**/apps/**'], message: 'Libraries never import apps.' },
        { group: ['@fetcher/*/src/**', '@fetcher/*/dist/**', '**/libs/**'], message: 'Import libraries by package name, not their internals.' },
        { group: ['@fetcher/connectors', '@fetcher/mongo-test-server', 'mongoose'], message: 'The contracts take the connectors\' rules as arguments, never load drivers, and use the mongodb driver\'s types (docs/architecture.md, "Import rules").' },
      ] }],
    },
  },
  // Apps: libraries and other apps by package name only, and another app only through its public entry
  // (`@fetcher/manager`, `@fetcher/worker`; specs may also use `@fetcher/manager/testing`).
  ...appImportRules('manager', ['@fetcher/worker', '@fetcher/standalone', '@fetcher/cli']),
  ...appImportRules('worker', ['@fetcher/manager', '@fetcher/standalone', '@fetcher/cli']),
  ...appImportRules('standalone', ['@fetcher/cli']),
  ...appImportRules('cli', ['@fetcher/manager', '@fetcher/worker', '@fetcher/standalone']),
  {
    // The console runs in a browser: its own program (DOM types, JSX), and nothing of the server side.
    // Its unit specs (apps/console/test) are in the root program, as they run under jest in Node.
    files: ['apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    languageOptions: { parserOptions: { project: './apps/console/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@fetcher/*', '**/libs/**', '**/apps/**', 'node:*'], message: 'The console is a browser app: it talks to the Manager over HTTP only.' },
      ] }],
    },
  },
  {
    files: ['libs/engine/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^(?!\\.{1,2}/|node:)', message: 'The engine imports only its own files and node: builtins. Put infrastructure behind a port.' },
          { regex: `^node:(${IO_BUILTINS.join('|')})(/|$)`, message: 'The engine does no I/O. Put it behind a port.' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'The engine gets everything through createEngine().' }],
    },
  },
  {
    // process.env is read only by config loaders and main.ts hand-offs (and test tooling).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/config/**', '**/main.ts', '**/*.spec.ts', '**/*.int-spec.ts', '**/test/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration once, in config/, and inject it.' }],
    },
  },
  {
    // Tests use jest's untyped matchers (expect.any, mocks); these rules only add noise there.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
