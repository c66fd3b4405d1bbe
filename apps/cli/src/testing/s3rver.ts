import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

/** s3rver in-process on a free loopback port, with its own directory; `stop` removes both. */
export async function startS3rver(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  // s3rver ships no type declarations; this is the little of it the tests use.
  const S3rver = createRequire(__filename)('s3rver') as S3rverConstructor;
  const directory = mkdtempSync(join(tmpdir(), 'fetcher-cli-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
