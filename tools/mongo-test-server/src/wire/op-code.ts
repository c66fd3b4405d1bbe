/** Wire-protocol opcodes this server reads or writes. Anything else closes the socket. */
export const OpCode = {
  reply: 1,
  query: 2004,
  compressed: 2012,
  msg: 2013,
} as const;

export const HEADER_SIZE = 16;

/** Advertised as `maxMessageSizeBytes` in the handshake; bigger frames are malformed. */
export const MAX_MESSAGE_SIZE = 48_000_000;

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
