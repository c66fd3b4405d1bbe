import { EngineError, ErrorText } from '../errors';
import type { OperationOptions } from '../models';

/** The optional last argument of every operation: `{signal?}`. Anything else is a caller bug. */
export function readSignal(options: unknown): AbortSignal | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') throw new EngineError('validation', ErrorText.invalidOperationOptions);
  const { signal } = options as OperationOptions;
  if (signal === undefined || signal === null) return undefined;
  if (!(signal instanceof AbortSignal)) throw new EngineError('validation', ErrorText.invalidOperationOptions);
  return signal;
}
