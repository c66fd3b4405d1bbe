/**
 * The planner's incremental rules as a pure function, for a host that checks a request before it
 * becomes a job (the Manager answers a 400 at creation instead of a job that can only fail). The
 * planner itself runs the same readers, so the two never disagree.
 */
import type { IncrementalRefusal } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import type { TableSchema } from '../models';
import { isPlainObject } from '../support/guards';
import { checkIncrementalShape, IncrementalRefusedError, readConfigIncremental } from './incremental-reader';
import { readMappedFields } from './request-reader';

/** The first thing wrong with a request's `incremental`; names are the request's own keys. */
export interface IncrementalProblem {
  readonly reason: IncrementalRefusal;
  /** Absent only when `incremental` itself is not an object. */
  readonly configName?: string;
  readonly table?: string;
  readonly field?: string;
  /** `"<reason>: <config>.<table>[.<field>]"`, the text the planner's refusal carries. */
  readonly message: string;
}

/**
 * Checks `incremental` against `mappedFields` (which must already be valid) and, when `schemaOf`
 * is given, against the schema of every incremental table of the configs it answers for (return
 * `undefined` from `schemaForConfig` to skip a config whose schema the host could not read).
 * Answers the first problem in the planner's order, or `undefined` when there is none.
 */
export function incrementalProblem(
  mappedFields: unknown,
  incremental: unknown,
  schemaForConfig?: (configName: string) => ((table: string) => TableSchema | undefined) | undefined,
): IncrementalProblem | undefined {
  try {
    checkIncrementalShape(incremental, readMappedFields(mappedFields));
    if (schemaForConfig === undefined || !isPlainObject(incremental)) return undefined;
    for (const configName of Object.keys(incremental).sort(compareUtf8)) {
      const schemaOf = schemaForConfig(configName);
      if (schemaOf !== undefined) readConfigIncremental(incremental, configName, schemaOf);
    }
    return undefined;
  } catch (error) {
    if (!(error instanceof IncrementalRefusedError)) throw error;
    const { config, table, field } = error.path;
    const named = incremental !== null && typeof incremental === 'object' && !Array.isArray(incremental);
    return {
      reason: error.refusal,
      ...(named ? { configName: config } : {}),
      ...(table !== undefined ? { table } : {}),
      ...(field !== undefined ? { field } : {}),
      message: error.message,
    };
  }
}
