import type { Job } from '../job';
import { createJobResponse, jobResponse } from './job.response';

const job: Job = {
  id: '01a23207-3e10-71f9-bcd1-3fabcd602224',
  status: 'failed',
  mappedFields: { a: { t: ['f'] } },
  metadata: { source: 'reporter', error: 'boom', terminalEventPending: true, terminalEventStatus: 'failed', terminalEventPayload: '{}' },
  requestHash: 'ab',
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  completedAt: new Date('2026-01-01T00:01:00.000Z'),
  dispatchedAt: new Date('2026-01-01T00:00:00.100Z'),
  dispatchAttempts: 1,
};

describe(jobResponse.name, () => {
  it('hides the Worker bookkeeping keys and the dispatch fields, and leaves out empty parts', () => {
    expect(jobResponse(job)).toEqual({
      id: job.id,
      metadata: { source: 'reporter', error: 'boom' },
      mappedFields: { a: { t: ['f'] } },
      status: 'failed',
      requestHash: 'ab',
      createdAt: '2026-01-01T00:00:00.000Z',
      completedAt: '2026-01-01T00:01:00.000Z',
    });
  });

  it('shows results and progress when the Worker reported them', () => {
    const running = { ...job, status: 'processing' as const, completedAt: null, metadata: {}, progress: { tablesDone: 1, rowsSoFar: 9, updatedAt: new Date() } };
    expect(jobResponse(running)).toEqual(expect.objectContaining({ progress: { tablesDone: 1, rowsSoFar: 9 } }));
    expect(jobResponse(running)).not.toHaveProperty('metadata');
    expect(jobResponse(running)).not.toHaveProperty('completedAt');
    expect(jobResponse({ ...job, resultPath: 'external-data/x.json', resultHmac: 'ff' })).toMatchObject({ resultPath: 'external-data/x.json', resultHmac: 'ff' });
  });

  it("shows a completed job's result size and row counts when the Worker recorded them", () => {
    const completed: Job = { ...job, status: 'completed', metadata: {}, resultPath: 'p', resultHmac: 'h', resultStats: { sizeBytes: 2048, rowCount: 30, rowCounts: { pg: 20, my: 10 } } };
    expect(jobResponse(completed).resultStats).toEqual({ sizeBytes: 2048, rowCount: 30, rowCounts: { pg: 20, my: 10 } });
    expect(Object.keys(jobResponse(completed))).toEqual(['id', 'mappedFields', 'status', 'resultPath', 'resultHmac', 'resultStats', 'requestHash', 'createdAt', 'completedAt']);
  });

  it('keeps the field order of the JSON clients have always received', () => {
    const full: Job = { ...job, filters: { a: { t: { f: { eq: [1] } } } }, resultPath: 'p', resultHmac: 'h', progress: { tablesDone: 1, rowsSoFar: 2, updatedAt: new Date() } };
    expect(Object.keys(jobResponse(full))).toEqual(['id', 'metadata', 'mappedFields', 'filters', 'status', 'resultPath', 'resultHmac', 'requestHash', 'createdAt', 'completedAt', 'progress']);
  });
});

describe(createJobResponse.name, () => {
  it('words new and duplicate answers as clients expect', () => {
    expect(createJobResponse(job, false).message).toBe('Job created and queued for processing');
    expect(createJobResponse(job, true)).toEqual({
      jobId: job.id,
      status: 'failed',
      createdAt: '2026-01-01T00:00:00.000Z',
      message: 'Duplicate request detected - returning existing job',
    });
  });
});
