import { bearerToken, EDITOR_SUBJECT, subjectFromToken } from './subject';

const jwt = (claims: unknown) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

describe(bearerToken.name, () => {
  it.each([
    ['Bearer abc.def.ghi', { kind: 'token', token: 'abc.def.ghi' }],
    ['bearer abc', { kind: 'token', token: 'abc' }],
    ['BEARER   abc  ', { kind: 'token', token: 'abc' }],
    ['abc.def.ghi', { kind: 'token', token: 'abc.def.ghi' }],
    ['Bearer', { kind: 'missing' }],
    ['Bearer   ', { kind: 'missing' }],
    ['', { kind: 'missing' }],
    [undefined, { kind: 'missing' }],
    ['Basic eyJhbGciOiJSUzI1NiJ9.e30.c2ln', { kind: 'other-scheme' }],
    ['Token abc', { kind: 'other-scheme' }],
    ['Bearerabc def', { kind: 'other-scheme' }],
  ])('reads %j as %j', (header, expected) => expect(bearerToken(header)).toEqual(expected));
});

describe(subjectFromToken.name, () => {
  it.each([
    ['a normal user within its owner', { type: 'normal-user', owner: 'acme', sub: 'u-1' }, { ok: true, subject: 'acme/u-1' }],
    ['a normal user without owner', { type: 'normal-user', sub: 'u-1' }, { ok: false }],
    ['an application token', { type: 'application', sub: 'svc' }, { ok: true, subject: EDITOR_SUBJECT }],
    ['a token without type', { sub: 'x' }, { ok: true, subject: EDITOR_SUBJECT }],
  ])('gives %s', (_name, claims, expected) => expect(subjectFromToken(jwt(claims))).toEqual(expected));

  it.each(['not-a-jwt', 'a.b', 'a.%%%.c', `a.${Buffer.from('[1]').toString('base64url')}.c`, `a.${Buffer.from('{bad').toString('base64url')}.c`])(
    'refuses the unparseable token %s', (token) => expect(subjectFromToken(token)).toEqual({ ok: false }));
});
