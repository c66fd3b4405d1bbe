/** A frame the server cannot parse. The connection that sent it is closed; nothing else is affected. */
export class MalformedMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedMessageError';
  }
}
