/** Where the ordered writer's bytes go: memory (direct mode) or the host's ResultWriter (store mode). */
export interface ResultTarget {
  /** Awaited before the next write: the target applies back-pressure. */
  write(bytes: Uint8Array): Promise<void>;
}
