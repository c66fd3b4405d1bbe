import { parseArgs } from 'node:util';
import { usageError } from './cli-error';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
}

export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses one command's arguments. Node's strict mode would do the checking, but its messages are
 * long and mention internals; this reports unknown options and missing values in one short line.
 */
export function parseCommandArgs(args: readonly string[], spec: Readonly<Record<string, OptionSpec>>, command: string): ParsedArgs {
  const { values, positionals, tokens } = parseArgs({
    args: [...args],
    options: spec,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = spec[token.name];
    const shown = token.rawName;
    if (!option) throw usageError(`${command}: unknown option ${shown}`);
    if (option.type === 'string' && (token.value === undefined || token.value === '')) throw usageError(`${command}: ${shown} needs a value`);
    if (option.type === 'boolean' && token.value !== undefined) throw usageError(`${command}: ${shown} takes no value`);
  }
  return { values: values, positionals };
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}
