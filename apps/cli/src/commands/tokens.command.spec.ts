import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { runCli } from '../cli';
import { EXIT } from '../cli-error';
import { loadCliConfig } from '../config/cli.config';
import { capturedIo } from '../testing/captured-io';

describe('fetcher tokens', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-tokens-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (argv: string[]) => {
    const io = capturedIo('');
    const code = await runCli(argv, () => loadCliConfig({}, dir), io);
    return { code, out: io.out(), err: io.err() };
  };

  it.each(['ES256', 'RS256'])('makes a %s key pair whose JWKS and PEM verify the tokens it signs', async (alg) => {
    const keys = join(dir, 'keys');
    const made = await run(['tokens', 'keygen', '--dir', keys, '--kid', 'trial-1', '--alg', alg]);
    expect(made.code).toBe(EXIT.ok);
    expect(statSync(join(keys, 'signing-key.jwk.json')).mode & 0o777).toBe(0o600);
    const envLine = made.out.split('\n').find((line) => line.startsWith('MULTI_TENANT_JWT_PUBLIC_KEY='));
    const pem = Buffer.from(envLine?.split('=')[1] ?? '', 'base64').toString('utf8');
    expect(pem).toBe(readFileSync(join(keys, 'public-key.pem'), 'utf8'));

    const signed = await run(['tokens', 'sign', '--key', join(keys, 'signing-key.jwk.json'), '--tenant', 'acme_eu-1', '--issuer', 'https://auth.test', '--audience', 'fetcher', '--ttl', '600']);
    expect(signed).toMatchObject({ code: EXIT.ok, err: '' });
    const token = signed.out.trim();
    expect(decodeProtectedHeader(token)).toEqual({ alg, kid: 'trial-1', typ: 'JWT' });

    const jwks = createLocalJWKSet(JSON.parse(readFileSync(join(keys, 'jwks.json'), 'utf8')));
    const viaJwks = await jwtVerify(token, jwks, { algorithms: [alg], issuer: 'https://auth.test', audience: 'fetcher' });
    expect(viaJwks.payload).toMatchObject({ tenantId: 'acme_eu-1', sub: 'fetcher-cli' });
    expect((viaJwks.payload.exp ?? 0) - (viaJwks.payload.iat ?? 0)).toBe(600);
    const viaPem = await jwtVerify(token, await importSPKI(pem, alg), { algorithms: [alg] });
    expect(viaPem.payload.tenantId).toBe('acme_eu-1');
  });

  it('never overwrites an existing key', async () => {
    expect((await run(['tokens', 'keygen', '--dir', dir])).code).toBe(EXIT.ok);
    const before = readFileSync(join(dir, 'signing-key.jwk.json'), 'utf8');
    const again = await run(['tokens', 'keygen', '--dir', dir]);
    expect(again.code).toBe(EXIT.failure);
    expect(again.err).toContain('exists');
    expect(readFileSync(join(dir, 'signing-key.jwk.json'), 'utf8')).toBe(before);
  });

  it.each([
    [['tokens', 'sign', '--tenant', 'acme'], '--key is required'],
    [['tokens', 'sign', '--key', 'k.json'], '--tenant is required'],
    [['tokens', 'sign', '--key', 'k.json', '--tenant', 'acme/../x'], '--tenant must be'],
    [['tokens', 'sign', '--key', 'k.json', '--tenant', 'acme', '--ttl', '0'], '--ttl must be'],
    [['tokens', 'keygen', '--dir', 'x', '--alg', 'HS256'], '--alg must be ES256 or RS256'],
    [['tokens', 'keygen'], '--dir is required'],
  ])('refuses %j as a usage error', async (argv, message) => {
    const res = await run(argv);
    expect(res.code).toBe(EXIT.usage);
    expect(res.err).toContain(message);
  });

  it('refuses a key file that is not a private JWK without printing it', async () => {
    const file = join(dir, 'public.json');
    writeFileSync(file, JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'secret-looking-x', y: 'y', kid: 'k', alg: 'ES256' }));
    const res = await run(['tokens', 'sign', '--key', file, '--tenant', 'acme']);
    expect(res.code).toBe(EXIT.usage);
    expect(res.err).toContain('is not a private key');
    expect(res.err).not.toContain('secret-looking-x');
  });
});
