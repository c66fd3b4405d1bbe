// Configuration is declared with zod: each app writes one declarative schema for its variables and
// gets a typed result from it, zod reports every problem of an environment in one pass (so an operator
// fixes them all at once instead of one restart per mistake), and defaults, coercion and cross-field
// rules live next to the variable they concern instead of in hand-written parsing code.
import { type z } from 'zod';
import { ConfigError } from './config-error';

/** Environment variables as the process received them. */
export type EnvSnapshot = Readonly<Record<string, string | undefined>>;

/** One problem, named by its variable. `message` states the rule and MUST NOT quote the value. */
export interface EnvProblem {
  readonly variable: string;
  readonly message: string;
}

/** A rule across several variables (pairs, TLS in SaaS). It sees the environment with blanks removed. */
export type EnvCheck = (env: EnvSnapshot) => readonly EnvProblem[];

export type DeepReadonly<T> = T extends (...args: never[]) => unknown ? T
  : T extends readonly (infer U)[] ? readonly DeepReadonly<U>[]
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/**
 * Parses an environment with an app's schema and cross-variable checks, once, at startup. Blank values
 * count as unset (what an empty chart value produces). Returns the typed, deeply frozen result, or
 * throws `ConfigError` listing every problem as `VARIABLE: rule`; values never appear in it.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: EnvSnapshot, checks: readonly EnvCheck[] = []): DeepReadonly<z.output<S>> {
  const cleaned = withoutBlanks(env);
  const result = schema.safeParse(cleaned);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => describeIssue(issue, cleaned))),
    ...checks.flatMap((check) => check(cleaned)).map((p) => `${p.variable}: ${p.message}`),
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError([...new Set(problems)]);
  return deepFreeze(result.data) as DeepReadonly<z.output<S>>;
}

/** A copy of the environment with values trimmed and blank ones removed. */
export function withoutBlanks(env: EnvSnapshot): Record<string, string> {
  const cleaned: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') cleaned[name] = value.trim();
  }
  return cleaned;
}

/**
 * Problems become `VARIABLE: rule`. The helpers here give their own wording; zod's default wording is
 * kept elsewhere because it describes the expected form and never quotes the input.
 */
function describeIssue(issue: z.core.$ZodIssue, env: Readonly<Record<string, string>>): string {
  const variable = issue.path.length > 0 ? issue.path.map(String).join('.') : 'environment';
  return `${variable}: ${ruleOf(issue, env[variable] === undefined)}`;
}

function ruleOf(issue: z.core.$ZodIssue, unset: boolean): string {
  if (issue.code === 'invalid_type') return unset ? 'is required' : `must be a ${issue.expected}`;
  // Plain enums carry no `expected`; helpers such as envBool set their own message.
  if (issue.code === 'invalid_value' && !('expected' in issue)) return `must be one of ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
