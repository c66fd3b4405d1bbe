import type { Socket } from 'node:net';
import type { CommandDispatcher } from '../commands/command-dispatcher';
import { FrameReader } from '../wire/frame-reader';
import { decodeMessage } from '../wire/message-decoder';
import { encodeOpMsgReply, encodeOpReply } from '../wire/message-encoder';
import { OpCode } from '../wire/op-code';

/** Hands out request ids for server replies. */
export type NextRequestId = () => number;

/**
 * One client socket. Frames are handled synchronously in arrival order, so replies go out in
 * request order. Anything unreadable closes this socket only; the server keeps serving others.
 */
export class ClientConnection {
  private readonly reader = new FrameReader();

  constructor(
    private readonly socket: Socket,
    private readonly connectionId: number,
    private readonly dispatcher: CommandDispatcher,
    private readonly nextRequestId: NextRequestId,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // A client that vanishes mid-write (ECONNRESET, EPIPE) is simply gone; nothing to report.
    socket.on('error', () => socket.destroy());
  }

  private receive(chunk: Buffer): void {
    try {
      for (const frame of this.reader.push(chunk)) {
        if (this.socket.destroyed) return;
        this.handle(frame);
      }
    } catch {
      // MalformedMessageError, or anything else unexpected while decoding: the stream can no
      // longer be trusted to be aligned on frame boundaries, so the only safe answer is to hang up.
      this.socket.destroy();
    }
  }

  private handle(frame: Buffer): void {
    const message = decodeMessage(frame);
    const reply = this.dispatcher.dispatch(message.database, message.command, this.connectionId);
    if (message.moreToCome) return;
    const encode = message.opCode === OpCode.query ? encodeOpReply : encodeOpMsgReply;
    this.socket.write(encode(this.nextRequestId(), message.requestId, reply));
  }
}
