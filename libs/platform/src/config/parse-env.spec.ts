import { z } from 'zod';
import { ConfigError } from './config-error';
import { envBool, envHostAllowlist, envInt, envList, envUrl, isAllowlistEntry } from './env-types';
import { pairCheck } from './env-rules';
import { parseEnv } from './parse-env';

const SECRET = 's3cr3t-value';

const schema = z.object({
  SERVICE_URL: envUrl({ protocols: ['http', 'https'] }),
  OPTIONAL_URL: envUrl({ protocols: ['amqp', 'amqps'], allowUserinfo: true }).optional(),
  FLAG: envBool(),
  ON_BY_DEFAULT: envBool(true),
  COUNT: envInt({ min: 1, max: 10, default: 5 }),
  REQUIRED_INT: envInt({ min: 0 }),
  MODE: z.enum(['local', 'saas', 'byoc']).default('local'),
  NAME: z.string(),
  LIST: envList().default([]),
  HOST_SAFETY_ALLOWLIST: envHostAllowlist().default([]),
});
const valid = { SERVICE_URL: 'https://auth.example.com:8443/x', REQUIRED_INT: '0', NAME: 'fetcher' };

function problemsOf(env: Record<string, string | undefined>, checks = [pairCheck(['USER', 'PASS'])]): string[] {
  try {
    parseEnv(schema, env, checks);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe(parseEnv.name, () => {
  it('returns typed defaults, treats blanks as unset and freezes the result', () => {
    const config = parseEnv(schema, { ...valid, FLAG: '  ', COUNT: '', LIST: ' a, ,b ' });
    expect(config).toEqual({
      SERVICE_URL: 'https://auth.example.com:8443/x', FLAG: false, ON_BY_DEFAULT: true, COUNT: 5, REQUIRED_INT: 0,
      MODE: 'local', NAME: 'fetcher', LIST: ['a', 'b'], HOST_SAFETY_ALLOWLIST: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.LIST)).toBe(true);
  });

  it.each([
    ['true', true], ['TRUE', true], ['1', true], ['t', true], ['T', true],
    ['false', false], ['False', false], ['0', false], ['f', false],
  ])('reads the boolean %s as %s', (text, expected) => expect(parseEnv(schema, { ...valid, FLAG: text }).FLAG).toBe(expected));

  it.each<[string, Record<string, string>, string[]]>([
    ['a required variable missing', { NAME: '' }, ['NAME: is required']],
    ['a URL without a host', { SERVICE_URL: 'https://:27401' }, ['SERVICE_URL: must name a host']],
    ['an unparseable URL', { SERVICE_URL: 'http//x' }, ['SERVICE_URL: must be an absolute URL']],
    ['userinfo in an endpoint URL', { SERVICE_URL: `https://u:${SECRET}@auth` }, ['SERVICE_URL: must not contain user credentials; use the dedicated variables']],
    ['a scheme outside the list', { SERVICE_URL: 'ftp://auth' }, ['SERVICE_URL: must use http or https']],
    ['userinfo where it is allowed', { OPTIONAL_URL: `amqp://u:${SECRET}@rabbit` }, []],
    ['an optional URL with the wrong scheme', { OPTIONAL_URL: 'http://rabbit' }, ['OPTIONAL_URL: must use amqp or amqps']],
    ['a bad boolean', { FLAG: 'yes' }, ['FLAG: must be true, false, 1, 0, t or f']],
    ['a non-integer', { COUNT: '2.5' }, ['COUNT: must be a whole number']],
    ['an integer below the minimum', { COUNT: '0' }, ['COUNT: must be at least 1']],
    ['an integer above the maximum', { COUNT: '11' }, ['COUNT: must be at most 10']],
    ['an enum value outside the list', { MODE: 'cloud' }, ['MODE: must be one of local, saas, byoc']],
    ['a bad allowlist entry', { HOST_SAFETY_ALLOWLIST: '127.0.0.1/32,::1/129,localhost' }, ['HOST_SAFETY_ALLOWLIST: entry 2 is neither a hostname nor a CIDR']],
    ['half of a credential pair', { USER: 'admin' }, ['PASS: is required when USER is set']],
    ['the other half', { PASS: SECRET }, ['USER: is required when PASS is set']],
  ])('refuses %s by naming the variable', (_name, overrides, expected) => {
    expect(problemsOf({ ...valid, ...overrides })).toEqual(expected);
  });

  it('reports every problem at once and never a value', () => {
    const env = { SERVICE_URL: `https://u:${SECRET}@auth`, FLAG: SECRET, COUNT: SECRET, MODE: SECRET, PASS: SECRET };
    let error: unknown;
    try {
      parseEnv(schema, env, [pairCheck(['USER', 'PASS'])]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0])).toEqual(['SERVICE_URL', 'FLAG', 'COUNT', 'REQUIRED_INT', 'MODE', 'NAME', 'USER']);
    expect((error as Error).message).not.toContain(SECRET);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });
});

describe(isAllowlistEntry.name, () => {
  it.each(['localhost', 'db.internal', 'DB-1.example.com.', '10.0.0.0/8', '127.0.0.1/32', '::1/128', 'fd00::/8', '192.168.1.10', '::1', '[::1]'])(
    'accepts %s', (entry) => expect(isAllowlistEntry(entry)).toBe(true));
  it.each(['10.0.0.0/33', '::/129', 'host/8', '10.0.0.0/', '-bad.example', 'under_score', 'a..b', 'http://x', '10.0.0.0/8/8'])(
    'refuses %s', (entry) => expect(isAllowlistEntry(entry)).toBe(false));
});
