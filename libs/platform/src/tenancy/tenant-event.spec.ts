import { parseTenantEvent, tenantEventsChannel } from './tenant-event';

describe(tenantEventsChannel.name, () => {
  it('names the channel with a trailing colon, lower-cased', () => {
    expect(tenantEventsChannel(' Staging ')).toBe('tenant-events:staging:');
    expect(tenantEventsChannel('production')).toBe('tenant-events:production:');
  });

  it.each(['', 'a:b', 'x y', '*'])('refuses the environment %j', (env) => {
    expect(() => tenantEventsChannel(env)).toThrow('environment name');
  });
});

describe(parseTenantEvent.name, () => {
  it('reads the snake_case envelope', () => {
    expect(parseTenantEvent(JSON.stringify({
      event_id: 'e1', event_type: 'tenant.service.associated', timestamp: '2026-01-02T03:04:05.5+01:00', tenant_id: 't1',
      tenant_slug: 'acme', environment: 'staging', payload: { service_name: 'fetcher' }, extra: true,
    }))).toEqual({
      ok: true,
      event: {
        eventId: 'e1', eventType: 'tenant.service.associated', timestamp: new Date('2026-01-02T02:04:05.500Z'), tenantId: 't1',
        tenantSlug: 'acme', environment: 'staging', payload: { service_name: 'fetcher' },
      },
    });
    expect(parseTenantEvent('{"event_type":"tenant.created","tenant_id":"t1"}')).toEqual({ ok: true, event: { eventType: 'tenant.created', tenantId: 't1' } });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['an array', '[]', 'not a JSON object'],
    ['no event_type', '{"tenant_id":"t"}', 'event_type is missing'],
    ['an empty tenant_id', '{"event_type":"x","tenant_id":""}', 'tenant_id is missing'],
    ['a malformed timestamp', '{"event_type":"x","tenant_id":"t","timestamp":"2026-01-02 03:04:05"}', 'timestamp is not RFC 3339'],
  ])('refuses %s', (_, message, reason) => {
    expect(parseTenantEvent(message)).toEqual({ ok: false, reason });
  });
});
