import { ErrorText } from './errors';
import { createTenantContext, requireTenant } from './tenant';

describe(createTenantContext.name, () => {
  it('trims the id and the request id, and drops a blank request id', () => {
    expect(createTenantContext('  acme_1-x ', ' req-9 ')).toEqual({ tenantId: 'acme_1-x', requestId: 'req-9' });
    expect(createTenantContext('acme', '   ')).toEqual({ tenantId: 'acme' });
    expect(Object.isFrozen(createTenantContext('acme'))).toBe(true);
  });

  it('accepts 256 bytes and refuses 257', () => {
    expect(createTenantContext('a'.repeat(256)).tenantId).toHaveLength(256);
    expect(() => createTenantContext('a'.repeat(257))).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.tenantInvalid }));
  });

  it.each(['', '   ', '_acme', '-acme', 'ac me', 'acme/1', 'acmé', 'a.b', undefined, null, 5])('refuses %p', (id) => {
    expect(() => createTenantContext(id as never)).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.tenantInvalid }));
  });

  it('refuses a request id that is not a string', () => {
    expect(() => createTenantContext('acme', 42 as never)).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.requestIdInvalid }));
  });
});

describe(requireTenant.name, () => {
  it('returns a frozen copy, so later changes to the caller object change nothing', () => {
    const given = { tenantId: 'acme', requestId: 'r' };
    const checked = requireTenant(given);
    given.tenantId = 'other';
    expect(checked).toEqual({ tenantId: 'acme', requestId: 'r' });
    expect(Object.isFrozen(checked)).toBe(true);
  });

  it('does not trim: a hand-built id must already be valid', () => {
    expect(() => requireTenant({ tenantId: ' acme' })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.tenantRequired }));
  });
});
