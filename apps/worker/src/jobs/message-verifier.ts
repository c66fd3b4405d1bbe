import { Inject, Injectable } from '@nestjs/common';
import { type VerifyEnvelopeResult, verifyEnvelope } from '@fetcher/platform';
import type { ConsumeMessage } from 'amqplib';
import { CLOCK, type Clock } from '../ports/clock.port';
import { JOB_SETTINGS, type JobSettings } from './job-settings';

export const MESSAGE_VERIFIER_OPTIONS = Symbol('MessageVerifierOptions');

export interface MessageVerifierOptions {
  readonly allowLegacyBodySignature: boolean;
}

/**
 * Checks a delivery's HMAC envelope with the values as delivered: the default exchange and the
 * work queue as routing key (a message re-routed through another exchange, such as a replay from
 * the dead-letter queue, does not verify), and every internal key on the ring. Never throws.
 */
@Injectable()
export class MessageVerifier {
  constructor(
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(MESSAGE_VERIFIER_OPTIONS) private readonly options: MessageVerifierOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  verify(msg: ConsumeMessage): VerifyEnvelopeResult {
    return verifyEnvelope({
      keys: this.settings.ring.all().map((k) => k.internalHmac),
      headers: msg.properties.headers ?? {},
      body: msg.content,
      exchange: msg.fields.exchange,
      routingKey: msg.fields.routingKey,
      now: this.clock.now(),
      allowLegacyBodySignature: this.options.allowLegacyBodySignature,
    });
  }
}
