import type { FastifyRequest } from 'fastify';
import type { ManagerMultiTenancy } from '../config/manager.config';
import { bindVerifiedTenant, jobRequestTenant, requestTenant, tenantIdOf } from './request-tenant';

const aRequest = (headers: Record<string, string> = {}) => ({ headers, id: 'req-1' }) as unknown as FastifyRequest;
const MT = { multiTenant: true } as ManagerMultiTenancy;

describe(tenantIdOf.name, () => {
  it('is the fixed internal tenant in single-tenant mode', () => {
    expect(requestTenant({ multiTenant: false, tenantId: 'default' }, aRequest({ 'x-request-id': 'abc' }))).toMatchObject({ tenantId: 'default', requestId: 'abc' });
  });

  it('is the verified tenant in multi-tenant mode, per request', () => {
    const a = aRequest();
    const b = aRequest();
    bindVerifiedTenant(a, 'acme');
    bindVerifiedTenant(b, 'globex');
    expect(jobRequestTenant(MT, a)).toMatchObject({ tenantId: 'acme', requestId: 'req-1' });
    expect(requestTenant(MT, b).tenantId).toBe('globex');
  });

  it('fails closed in multi-tenant mode when no token was verified, whatever the request claims', () => {
    const request = aRequest({ 'x-tenant-id': 'acme' });
    (request as unknown as Record<string, unknown>).tenantId = 'acme';
    expect(() => tenantIdOf(MT, request)).toThrow('without a verified tenant');
  });
});
