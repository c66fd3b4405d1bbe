// The public API of @fetcher/engine. Everything a host or connector may rely on is exported here.
export * from './errors';
export * from './models';
export { DEFAULT_LIMITS, type Limits } from './limits';
export * from './ports';
export {
  encodeCanonicalJson,
  encodeCanonicalRow,
  encodeCanonicalString,
  canonicalTimestamp,
  compareUtf8,
  sortedKeys,
  base64,
} from './canonical/encode';
export { CanonicalDocumentWriter, type ChunkOutput } from './canonical/document-writer';
export { ConfigFragmentEncoder, type EncodedChunk, type FragmentOptions } from './canonical/fragment-encoder';
export { createEngine, type Engine, type EngineOptions } from './engine';
export type { TestConnectionResult } from './connections/connection-tester';
export { createTenantContext, isTenantId } from './tenant';
export { withConnectionSecrets } from './connections/secrets';
export {
  normaliseFilterValue,
  parseInstant,
  nextDayStart,
  type FilterValue,
  type ParsedInstant,
} from './planner/filter-values';
