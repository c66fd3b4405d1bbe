// @fetcher/engine/memory: in-memory ports for tests and embedding. Not for production data.
export { MemoryConnectionStore } from './memory-connection-store';
export { MemoryExecutionStore } from './memory-execution-store';
export { RecordingExecutionStore, type RecordedExecution } from './recording-execution-store';
export { MemorySchemaCache } from './memory-schema-cache';
export { MemoryResultSink } from './memory-result-sink';
export { MemoryResultWriter } from './memory-result-sink';
export { MemoryConnectorRegistry } from './memory-connector-registry';
export { MemoryConnectorFactory } from './memory-connector-factory';
export { TemplateConnector } from './template-connector';
export type { ConnectorBehavior } from './connector-behavior';
export { eagerCursor, iterableCursor } from './eager-cursor';
