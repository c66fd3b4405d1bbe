import { banner, SAMPLE_JOB_BODY } from './banner';

describe(banner.name, () => {
  const facts = { baseUrl: 'http://127.0.0.1:4006', dataDir: '/srv/data', keyOrigin: 'generated', startupMs: 2_345, defaultDataDir: true };
  const demo = { host: '127.0.0.1', port: 40_000, database: 'postgres', user: 'postgres' };

  it('shows the URLs and a copy-paste sequence for the demo connection', () => {
    const text = banner({ ...facts, demo });
    expect(text).toContain('ready in 2.3 s');
    expect(text).toContain('Swagger UI   http://127.0.0.1:4006/swagger\n');
    expect(text).toContain('OpenAPI      http://127.0.0.1:4006/swagger/doc.json\n');
    expect(text).toContain("curl -s -H 'X-Product-Name: demo' http://127.0.0.1:4006/v1/management/connections");
    expect(text).toContain(`-d '${SAMPLE_JOB_BODY}'`);
    expect(text).toContain('\n  npx fetcher result decrypt <jobId>');
    expect(JSON.parse(SAMPLE_JOB_BODY)).toMatchObject({ metadata: { source: 'demo' } });
  });

  it('names the console first when the Manager serves it, and not otherwise', () => {
    expect(banner({ ...facts, console: true })).toContain('(ready in 2.3 s)\n\n  Console      http://127.0.0.1:4006/console/\n  Swagger UI');
    expect(banner({ ...facts, console: false })).not.toContain('/console');
  });

  it('tells the CLI where the data is when it is not the default directory', () => {
    expect(banner({ ...facts, demo, defaultDataDir: false })).toContain('FETCHER_DATA_DIR=/srv/data npx fetcher result decrypt <jobId>');
  });

  it('leaves the demo sequence out without the demo database', () => {
    expect(banner(facts)).not.toContain('Try it');
  });
});
