import { hkdfSync, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN_HELP, runCli } from './cli';
import { EXIT } from './cli-error';
import { loadCliConfig } from './config/cli.config';
import { capturedIo } from './testing/captured-io';
import { aMasterKey, storedResult } from './testing/stored-result';

describe(runCli.name, () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (argv: string[], env: Record<string, string> = {}, stdin = '') => {
    const io = capturedIo(stdin);
    const code = await runCli(argv, () => loadCliConfig({ FETCHER_DATA_DIR: join(dir, 'data'), ...env }, dir), io);
    return { code, out: io.out(), err: io.err() };
  };

  /** A standalone data directory holding one completed job, as the standalone service writes it. */
  function dataDirWithJob(plaintext: string, overrides: Record<string, unknown> = {}) {
    const master = aMasterKey();
    const jobId = randomUUID();
    const { object, hmac } = storedResult(master, plaintext);
    const data = join(dir, 'data');
    mkdirSync(join(data, 'objects', 'external-data'), { recursive: true });
    mkdirSync(join(data, 'jobs'), { recursive: true });
    writeFileSync(join(data, 'master.key'), `${master.toString('base64')}\n`, { mode: 0o600 });
    writeFileSync(join(data, 'objects', 'external-data', `${jobId}.json`), object);
    const record = { id: jobId, status: 'completed', resultPath: `external-data/${jobId}.json`, resultHmac: hmac, ...overrides };
    writeFileSync(join(data, 'jobs', `${jobId}.json`), JSON.stringify(record));
    return { master, jobId, hmac, object, data };
  }

  describe('help and usage', () => {
    it.each([[['--help']], [['-h']], [['help']]])('prints the main help for %j', async (argv) => {
      expect(await run(argv)).toEqual({ code: EXIT.ok, out: MAIN_HELP, err: '' });
    });

    it('answers no arguments with the main help on stderr and exit 2', async () => {
      expect(await run([])).toEqual({ code: EXIT.usage, out: '', err: MAIN_HELP });
    });

    it.each([[['help', 'result']], [['result', '--help']]])('prints the help of every command of a group for %j', async (argv) => {
      const { code, out, err } = await run(argv);
      expect({ code, err }).toEqual({ code: EXIT.ok, err: '' });
      expect(out).toMatch(/Usage: fetcher result decrypt[\s\S]*Usage: fetcher result verify/);
    });

    it.each([
      [['result', 'decrypt', '--help'], /Usage: fetcher result decrypt/],
      [['help', 'result', 'verify'], /Usage: fetcher result verify/],
      [['keys', 'derive', '-h'], /Usage: fetcher keys derive/],
    ])('prints command help for %j', async (argv, pattern) => {
      const { code, out } = await run(argv);
      expect(code).toBe(EXIT.ok);
      expect(out).toMatch(pattern);
    });

    it('prints the version', async () => {
      expect(await run(['--version'])).toMatchObject({ code: EXIT.ok, out: '0.1.0\n' });
    });

    it.each([
      [['frobnicate'], "fetcher: unknown command 'frobnicate'"],
      [['result', 'explode'], "fetcher: unknown command 'result explode' (the result commands: decrypt, verify)"],
      [['result'], 'fetcher: result: give a sub-command: decrypt, verify'],
      [['keys'], 'fetcher: keys: give a sub-command: derive'],
      [['help', 'result', 'explode'], "fetcher: help: unknown command 'result explode'"],
      [['result', 'decrypt', '--nope'], 'fetcher: result decrypt: unknown option --nope'],
      [['result', 'decrypt', 'not-a-uuid'], 'fetcher: result decrypt: the job id must be a UUID'],
      [['result', 'decrypt'], 'fetcher: result decrypt: give a job id, or --file FILE'],
      [['result', 'verify', '--hmac'], 'fetcher: result verify: --hmac needs a value'],
      [['keys', 'derive', '--encoding', 'rot13'], 'fetcher: keys derive: --encoding must be base64 or hex'],
    ])('exits 2 with one clear line for %j', async (argv, line) => {
      const { code, out, err } = await run(argv);
      expect(code).toBe(EXIT.usage);
      expect(out).toBe('');
      expect(err).toBe(`${line}\nRun 'fetcher --help' for usage.\n`);
    });

    it('names a bad variable, never its value, and still answers --help', async () => {
      const env = { APP_ENC_KEY: 'c2hvcnQtc2VjcmV0' };
      const { code, err } = await run(['keys', 'derive'], env);
      expect(code).toBe(EXIT.usage);
      expect(err).toBe('fetcher: APP_ENC_KEY: must decode to at least 32 bytes\n');
      expect((await run(['--help'], env)).code).toBe(EXIT.ok);
    });
  });

  describe('keys derive', () => {
    const master = aMasterKey();
    const expected = (info: string, encoding: BufferEncoding) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32)).toString(encoding);

    it('prints the four HKDF sub-keys of APP_ENC_KEY in base64', async () => {
      const { code, out } = await run(['keys', 'derive'], { APP_ENC_KEY: master.toString('base64') });
      expect(code).toBe(EXIT.ok);
      const lines = out.trimEnd().split('\n').map((l) => l.split(/\s+/));
      expect(lines).toEqual([
        ['credentials', 'fetcher-credentials-v1', expected('fetcher-credentials-v1', 'base64')],
        ['internal-hmac', 'fetcher-internal-hmac-v1', expected('fetcher-internal-hmac-v1', 'base64')],
        ['external-hmac', 'fetcher-external-hmac-v1', expected('fetcher-external-hmac-v1', 'base64')],
        ['storage', 'fetcher-storage-encryption-v1', expected('fetcher-storage-encryption-v1', 'base64')],
      ]);
    });

    it('reads the key from stdin and prints hex JSON', async () => {
      const { code, out } = await run(['keys', 'derive', '--key-file', '-', '--encoding', 'hex', '--json'], {}, `${master.toString('base64')}\n`);
      expect(code).toBe(EXIT.ok);
      expect(JSON.parse(out)).toEqual({
        encoding: 'hex',
        credentials: expected('fetcher-credentials-v1', 'hex'),
        'internal-hmac': expected('fetcher-internal-hmac-v1', 'hex'),
        'external-hmac': expected('fetcher-external-hmac-v1', 'hex'),
        storage: expected('fetcher-storage-encryption-v1', 'hex'),
      });
    });

    it('reads a key file, and refuses a malformed one without quoting it', async () => {
      const file = join(dir, 'key');
      writeFileSync(file, 'not base64 at all!');
      const { code, err } = await run(['keys', 'derive', '--key-file', file]);
      expect(code).toBe(EXIT.usage);
      expect(err).toContain('--key-file: must be standard base64');
      expect(err).not.toContain('not base64 at all');
    });

    it('says where to find a key when there is none', async () => {
      const { code, err } = await run(['keys', 'derive']);
      expect(code).toBe(EXIT.usage);
      expect(err).toMatch(/^fetcher: no master key: set APP_ENC_KEY/);
    });
  });

  describe('result decrypt', () => {
    const document = '{"demo":{"customers":[{"id":1,"name":"Zoë"}]}}';

    it('decrypts a job of the data directory with its generated key and recorded HMAC', async () => {
      const { jobId } = dataDirWithJob(document);
      expect(await run(['result', 'decrypt', jobId])).toEqual({ code: EXIT.ok, out: `${document}\n`, err: '' });
    });

    it('says there is no such result (exit 3), naming the directory, for a job the data directory does not know', async () => {
      dataDirWithJob(document);
      const unknown = randomUUID();
      for (const command of ['decrypt', 'verify']) {
        expect(await run(['result', command, unknown])).toEqual({
          code: EXIT.failure,
          out: '',
          err: `fetcher: no result for job ${unknown} in the data directory ${join(dir, 'data')} (no job record, no stored result); set FETCHER_DATA_DIR or --data-dir if the service ran elsewhere\n`,
        });
      }
    });

    it('writes --out atomically and leaves no staging file', async () => {
      const { jobId } = dataDirWithJob(document);
      const out = join(dir, 'result.json');
      expect(await run(['result', 'decrypt', jobId, '--out', out])).toEqual({ code: EXIT.ok, out: '', err: '' });
      expect(readFileSync(out, 'utf8')).toBe(document);
      expect(readdirSync(dir).sort()).toEqual(['data', 'result.json']);
    });

    it('exits 1 and prints nothing when the HMAC does not match', async () => {
      const { jobId } = dataDirWithJob(document, { resultHmac: 'ab'.repeat(32) });
      const out = join(dir, 'result.json');
      const { code, out: stdout, err } = await run(['result', 'decrypt', jobId, '--out', out]);
      expect({ code, stdout }).toEqual({ code: EXIT.integrity, stdout: '' });
      expect(err).toBe('fetcher: HMAC mismatch: the decrypted result does not match the HMAC from the job record\n');
      expect(readdirSync(dir)).toEqual(['data']);
    });

    it('exits 1 and prints nothing when the stored bytes were altered', async () => {
      const { jobId, data, object } = dataDirWithJob(document);
      const raw = Buffer.from(object, 'base64');
      raw[20] = raw[20] ^ 0x80;
      writeFileSync(join(data, 'objects', 'external-data', `${jobId}.json`), raw.toString('base64'));
      const { code, out, err } = await run(['result', 'decrypt', jobId]);
      expect({ code, out }).toEqual({ code: EXIT.integrity, out: '' });
      expect(err).toMatch(/failed authentication/);
    });

    it('decrypts --file with --hmac and a key from APP_ENC_KEY', async () => {
      const master = aMasterKey();
      const { object, hmac } = storedResult(master, document);
      writeFileSync(join(dir, 'r.b64'), object);
      const env = { APP_ENC_KEY: master.toString('base64') };
      expect(await run(['result', 'decrypt', '--file', join(dir, 'r.b64'), '--hmac', hmac.toUpperCase()], env)).toMatchObject({ code: EXIT.ok, out: `${document}\n` });
    });

    it('needs an HMAC to compare with, unless --skip-hmac', async () => {
      const master = aMasterKey();
      writeFileSync(join(dir, 'r.b64'), storedResult(master, document).object);
      const env = { APP_ENC_KEY: master.toString('base64') };
      const refused = await run(['result', 'decrypt', '--file', join(dir, 'r.b64')], env);
      expect(refused.code).toBe(EXIT.usage);
      expect(refused.err).toMatch(/no HMAC to check against/);
      const skipped = await run(['result', 'decrypt', '--file', join(dir, 'r.b64'), '--skip-hmac'], env);
      expect(skipped).toEqual({ code: EXIT.ok, out: `${document}\n`, err: 'fetcher: note: HMAC not checked (--skip-hmac); the AES-GCM tag was verified\n' });
    });

    it('exits 3 for a job that has not completed, and for a missing result', async () => {
      const { jobId } = dataDirWithJob(document, { status: 'processing' });
      expect(await run(['result', 'decrypt', jobId])).toMatchObject({ code: EXIT.failure, err: `fetcher: job ${jobId} is processing; it has no result\n` });
      const completed = dataDirWithJob(document);
      rmSync(join(completed.data, 'objects', 'external-data', `${completed.jobId}.json`));
      const missing = await run(['result', 'decrypt', completed.jobId]);
      expect(missing.code).toBe(EXIT.failure);
      expect(missing.err).toMatch(new RegExp(`^fetcher: no result at .*external-data/${completed.jobId}\\.json\\n$`));
    });

    it('refuses a recorded result path that leaves the data directory', async () => {
      const { jobId } = dataDirWithJob(document, { resultPath: '../../etc/passwd' });
      expect(await run(['result', 'decrypt', jobId])).toMatchObject({ code: EXIT.failure, err: 'fetcher: the stored result path leaves the data directory\n' });
    });

    it('refuses --out into a directory that does not exist', async () => {
      const { jobId } = dataDirWithJob(document);
      const { code } = await run(['result', 'decrypt', jobId, '--out', join(dir, 'nope', 'r.json')]);
      expect(code).toBe(EXIT.usage);
      expect(existsSync(join(dir, 'nope'))).toBe(false);
    });
  });

  describe('result verify', () => {
    it('prints one line when the result is authentic and matches', async () => {
      const { jobId } = dataDirWithJob('{"a":[]}');
      const { code, out } = await run(['result', 'verify', jobId]);
      expect(code).toBe(EXIT.ok);
      expect(out).toMatch(/^ok: .*external-data\/.*\.json is authentic and matches its HMAC \(8 bytes of JSON\)\n$/);
    });

    it('exits 1 on a mismatching --hmac', async () => {
      const { jobId } = dataDirWithJob('{"a":[]}');
      const { code, out, err } = await run(['result', 'verify', jobId, '--hmac', '00'.repeat(32)]);
      expect({ code, out }).toEqual({ code: EXIT.integrity, out: '' });
      expect(err).toMatch(/^fetcher: HMAC mismatch: .* does not match the HMAC from --hmac\n$/);
    });
  });
});
