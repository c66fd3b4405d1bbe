import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { parseCommandArgs, stringOption } from '../args';
import { EXIT, failure, usageError, type ExitCode } from '../cli-error';
import type { CliConfig } from '../config/cli.config';
import type { CliIo } from '../io';

export const TOKENS_KEYGEN_HELP = `Usage: fetcher tokens keygen --dir DIR [--kid KID] [--alg ES256|RS256]

Makes a key pair for signing multi-tenant tokens, for trials and tests of a multi-tenant Manager. In
production the platform's identity provider issues the tokens; this stands in for it.

Writes into DIR (created if needed; existing keys are never overwritten):
  signing-key.jwk.json   the private key as a JWK with its kid and alg (mode 0600): keep it secret
  jwks.json              the public key set: serve it and point MULTI_TENANT_JWKS_URL at it
  public-key.pem         the public key: base64 it into MULTI_TENANT_JWT_PUBLIC_KEY
and prints the MULTI_TENANT_JWT_PUBLIC_KEY value.

Options:
  --dir DIR     where to write the files (required)
  --kid KID     key id (default fetcher-<date>)
  --alg ALG     ES256 (default) or RS256
  -h, --help    show this help
`;

export const TOKENS_SIGN_HELP = `Usage: fetcher tokens sign --key FILE --tenant ID [--issuer ISS] [--audience AUD] [--ttl SECONDS]

Prints a signed tenant token (a JWT with a tenantId claim) for a multi-tenant Manager, to send as
"Authorization: Bearer <token>". The key file is the signing-key.jwk.json of 'fetcher tokens keygen'.

Options:
  --key FILE         the private JWK (required)
  --tenant ID        the tenantId claim (required): letters, digits, _ and -, starting with a
                     letter or digit, at most 256 characters
  --issuer ISS       the iss claim (match MULTI_TENANT_JWT_ISSUER when the Manager sets it)
  --audience AUD     the aud claim (one of MULTI_TENANT_JWT_AUDIENCE when the Manager sets it)
  --ttl SECONDS      lifetime (default 3600)
  --subject SUB      the sub claim (default fetcher-cli)
  -h, --help         show this help
`;

const KEYGEN_OPTIONS = { dir: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' } } as const;
const SIGN_OPTIONS = {
  key: { type: 'string' },
  tenant: { type: 'string' },
  issuer: { type: 'string' },
  audience: { type: 'string' },
  ttl: { type: 'string' },
  subject: { type: 'string' },
} as const;

const ALGORITHMS = ['ES256', 'RS256'] as const;
const TENANT_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,255}$/;
const PRIVATE_KEY_FILE = 'signing-key.jwk.json';

export async function tokensKeygen(args: readonly string[], _config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, KEYGEN_OPTIONS, 'tokens keygen');
  if (parsed.positionals.length > 0) throw usageError(`tokens keygen: unexpected argument ${parsed.positionals[0]}`);
  const dir = stringOption(parsed, 'dir');
  if (dir === undefined) throw usageError('tokens keygen: --dir is required');
  const alg = stringOption(parsed, 'alg') ?? 'ES256';
  if (!(ALGORITHMS as readonly string[]).includes(alg)) throw usageError('tokens keygen: --alg must be ES256 or RS256');
  const kid = stringOption(parsed, 'kid') ?? `fetcher-${new Date().toISOString().slice(0, 10)}`;
  if (existsSync(join(dir, PRIVATE_KEY_FILE))) throw failure(`tokens keygen: ${join(dir, PRIVATE_KEY_FILE)} exists; choose another --dir`);

  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  const publicPem = await exportSPKI(publicKey);
  await exportPKCS8(privateKey); // proves the key is exportable before anything is written

  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, PRIVATE_KEY_FILE), `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await writeFile(join(dir, 'jwks.json'), `${JSON.stringify({ keys: [publicJwk] }, null, 2)}\n`);
  await writeFile(join(dir, 'public-key.pem'), publicPem);
  io.stdout.write(`wrote ${join(dir, PRIVATE_KEY_FILE)} (secret), ${join(dir, 'jwks.json')} and ${join(dir, 'public-key.pem')}; kid ${kid}, ${alg}\n`);
  io.stdout.write(`MULTI_TENANT_JWT_PUBLIC_KEY=${Buffer.from(publicPem).toString('base64')}\n`);
  return EXIT.ok;
}

export async function tokensSign(args: readonly string[], _config: () => CliConfig, io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs(args, SIGN_OPTIONS, 'tokens sign');
  if (parsed.positionals.length > 0) throw usageError(`tokens sign: unexpected argument ${parsed.positionals[0]}`);
  const keyFile = stringOption(parsed, 'key');
  const tenant = stringOption(parsed, 'tenant');
  if (keyFile === undefined) throw usageError('tokens sign: --key is required');
  if (tenant === undefined) throw usageError('tokens sign: --tenant is required');
  if (!TENANT_ID.test(tenant)) throw usageError('tokens sign: --tenant must be letters, digits, _ and -, starting with a letter or digit, at most 256 characters');
  const ttlText = stringOption(parsed, 'ttl') ?? '3600';
  if (!/^\d{1,9}$/.test(ttlText) || Number(ttlText) === 0) throw usageError('tokens sign: --ttl must be a positive number of seconds');

  const jwk = await readPrivateJwk(keyFile);
  const key = await importJWK(jwk, jwk.alg);
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ tenantId: tenant })
    .setProtectedHeader({ alg: jwk.alg ?? '', kid: jwk.kid ?? '', typ: 'JWT' })
    .setSubject(stringOption(parsed, 'subject') ?? 'fetcher-cli')
    .setIssuedAt(now)
    .setExpirationTime(now + Number(ttlText));
  const issuer = stringOption(parsed, 'issuer');
  const audience = stringOption(parsed, 'audience');
  if (issuer !== undefined) jwt.setIssuer(issuer);
  if (audience !== undefined) jwt.setAudience(audience);
  io.stdout.write(`${await jwt.sign(key)}\n`);
  return EXIT.ok;
}

/** The key file of `tokens keygen`; its text never reaches the terminal, whatever is wrong with it. */
async function readPrivateJwk(file: string): Promise<JWK & { alg: string; kid: string }> {
  let jwk: unknown;
  try {
    jwk = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw failure(`tokens sign: cannot read a JSON key from ${file}`);
  }
  const candidate = jwk as Partial<JWK> | null;
  if (candidate === null || typeof candidate !== 'object' || typeof candidate.d !== 'string' || typeof candidate.kid !== 'string'
    || !(ALGORITHMS as readonly string[]).includes(candidate.alg ?? '')) {
    throw usageError(`tokens sign: ${file} is not a private key of 'fetcher tokens keygen' (a JWK with d, kid and alg ES256 or RS256)`);
  }
  return candidate as JWK & { alg: string; kid: string };
}
