import { amqpUrl } from './amqp-url';

describe(amqpUrl.name, () => {
  it.each([
    [{ host: 'rabbit' }, 'amqp://rabbit'],
    [{ scheme: 'amqps', host: 'rabbit', port: 5671, user: 'guest', password: 'guest' }, 'amqps://guest:guest@rabbit:5671'],
    [{ scheme: ' ', host: 'rabbit', port: '' }, 'amqp://rabbit'],
    [{ host: 'rabbit', user: 'a@b', password: 'p:/?#@%' }, 'amqp://a%40b:p%3A%2F%3F%23%40%25@rabbit'],
    [{ host: '::1', port: 5672 }, 'amqp://[::1]:5672'],
    [{ host: 'rabbit', vhost: '/' }, 'amqp://rabbit'],
    [{ host: 'rabbit', vhost: 'tenant/a' }, 'amqp://rabbit/tenant%2Fa'],
  ])('builds %j as %s', (parts, expected) => expect(amqpUrl(parts)).toBe(expected));

  it('keeps a hostile password from changing the host that is dialled', () => {
    expect(new URL(amqpUrl({ host: 'rabbit', user: 'u', password: 'x@evil:1/' })).hostname).toBe('rabbit');
  });
});
