import { Inject, Injectable } from '@nestjs/common';
import { checkHostLiteral, type HostSafetyPolicy } from '@fetcher/connectors';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { Errors } from '../errors/catalogue';
import { isHostNotAllowed } from './dial-errors';

/**
 * Host safety at create and PATCH: the literal value only, no DNS (an unresolvable public name is
 * accepted; every later dial resolves and checks each address). The host is never echoed.
 */
@Injectable()
export class HostLiteralCheck {
  private readonly policy: HostSafetyPolicy;

  constructor(@Inject(MANAGER_CONFIG) config: ManagerConfig) {
    this.policy = { allowPrivate: config.hostSafety.allowPrivate, allowlist: config.hostSafety.allowlist };
  }

  check(host: string): void {
    try {
      checkHostLiteral(host, this.policy);
    } catch (error) {
      if (isHostNotAllowed(error)) throw Errors.forbiddenHost();
      throw error;
    }
  }
}
