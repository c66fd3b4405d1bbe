// The public API of @fetcher/engine: what an embedding service or a connector needs. The error
// texts a host may show are exported as constants; the helpers that build the engine's own
// messages stay internal, so that nobody is tempted to match on text (branch on `category`).
export {
  EngineError,
  ERROR_CATEGORIES,
  ErrorText,
  ValidationText,
  filterTypeMismatchText,
  IncrementalText,
  incrementalText,
  type IncrementalRefusal,
  isEngineError,
  CONNECT_REASONS,
  connectReasonOf,
  type ConnectReason,
  type EngineErrorOptions,
  type ErrorCategory,
} from './errors';
export * from './models';
export { DEFAULT_LIMITS, type Limits } from './limits';
export * from './ports';
export {
  encodeCanonicalJson,
  encodeCanonicalRow,
  encodeCanonicalString,
  canonicalTimestamp,
  compareUtf8,
  base64,
} from './canonical/encode';
export { CanonicalDocumentWriter, type ChunkOutput } from './canonical/document-writer';
export { createEngine, type Engine, type EngineOptions } from './engine';
export type { TestConnectionResult } from './connections/connection-tester';
export { createTenantContext, isTenantId } from './tenant';
export { filterProblems, type FilterProblem } from './planner/filter-problems';
export { incrementalProblem, type IncrementalProblem } from './planner/incremental-problems';
export { withConnectionSecrets } from './connections/secrets';
export { ReadOnlyConnectionStore } from './connections/read-only-connection-store';
export { comparePositions, normaliseBound, toPosition, ORDERABLE_KINDS, type Bounds } from './incremental/position';
export {
  normaliseFilterValue,
  parseInstant,
  nextDayStart,
  type FilterValue,
  type ParsedInstant,
} from './planner/filter-values';
