import { parseCreateJobRequest } from './create-job.request';

describe(parseCreateJobRequest.name, () => {
  it.each([
    ['an array', []],
    ['a string', 'x'],
    ['null', null],
    ['mappedFields as a string', { dataRequest: { mappedFields: 'x' } }],
    ['a field list that is not an array', { dataRequest: { mappedFields: { a: { t: 'f' } } } }],
    ['a field name that is not a string', { dataRequest: { mappedFields: { a: { t: [1] } } } }],
    ['metadata as an array', { metadata: [] }],
    ['dataRequest as an array', { dataRequest: [] }],
    ['an operator value that is not an array', { dataRequest: { filters: { a: { t: { f: { eq: 'x' } } } } } }],
    ['filters as a number', { dataRequest: { filters: 3 } }],
  ])('refuses %s', (_, body) => {
    expect(parseCreateJobRequest(body)).toEqual({ ok: false });
  });

  it('treats null as absent and drops unknown fields', () => {
    expect(parseCreateJobRequest({ dataRequest: { mappedFields: null, filters: null }, metadata: null, extra: [1] })).toEqual({
      ok: true,
      request: { filters: {}, filterDatasources: [] },
    });
  });

  it('keeps unknown operators and empty lists for the filter rules to refuse, drops null operators and what they leave empty', () => {
    const parsed = parseCreateJobRequest({
      dataRequest: {
        mappedFields: { a: { t: ['f'], u: null } },
        filters: { a: { t: { f: { eq: [1], regex: 'x', gt: [], lt: null }, g: { gt: null } }, u: { h: { nope: [] } } }, b: null },
      },
      metadata: { source: 'reporter' },
    });
    expect(parsed).toEqual({
      ok: true,
      request: {
        mappedFields: { a: { t: ['f'], u: [] } },
        filters: { a: { t: { f: { eq: [1], regex: 'x', gt: [] } }, u: { h: { nope: [] } } } },
        filterDatasources: ['a', 'b'],
        metadata: { source: 'reporter' },
      },
    });
  });

  it('keeps a __proto__ key as data', () => {
    const parsed = parseCreateJobRequest(JSON.parse('{"dataRequest":{"mappedFields":{"__proto__":{"t":["f"]}}}}'));
    expect(parsed.ok && Object.keys(parsed.request.mappedFields!)).toEqual(['__proto__']);
  });
});
