import { TenantScope } from '../../tenancy/tenant-scope';
import { JobCancelRegistry, JobCanceled } from './job-cancel-registry';

describe(JobCancelRegistry.name, () => {
  const at = new Date('2026-12-05T10:00:00Z');

  it('aborts the watched run of the job with a JobCanceled reason, once', () => {
    const sut = new JobCancelRegistry();
    const watch = sut.watch('a');
    const other = sut.watch('b');
    expect(sut.request('a', at)).toBe(true);
    expect(sut.request('a', new Date(at.getTime() + 1))).toBe(false);
    expect(watch.signal.aborted).toBe(true);
    expect(watch.signal.reason).toBeInstanceOf(JobCanceled);
    expect(watch.requestedAt).toEqual(at);
    expect(other.signal.aborted).toBe(false);
  });

  it('remembers a request for a job not running here and applies it when its run starts', () => {
    const sut = new JobCancelRegistry();
    expect(sut.request('a', at)).toBe(false);
    const watch = sut.watch('a');
    expect(watch.signal.aborted).toBe(true);
    expect(watch.requestedAt).toEqual(at);
    watch.release();
    expect(sut.watch('a').signal.aborted).toBe(false); // used once
  });

  it('stops watching a released run', () => {
    const sut = new JobCancelRegistry();
    const watch = sut.watch('a');
    watch.release();
    expect(sut.running).toBe(0);
    expect(sut.request('a', at)).toBe(false);
    expect(watch.signal.aborted).toBe(false);
  });

  it('forgets the oldest remembered requests past its bound', () => {
    const sut = new JobCancelRegistry();
    for (let i = 0; i <= 1_000; i++) sut.request(`job-${i}`, at);
    expect(sut.watch('job-0').signal.aborted).toBe(false);
    expect(sut.watch('job-1000').signal.aborted).toBe(true);
  });

  it('multi-tenant: a request reaches only a run of the tenant in scope, now or when it starts', () => {
    const scope = new TenantScope();
    const sut = new JobCancelRegistry(scope);
    const runOfA = scope.run('acme', () => sut.watch('j1'));
    // The same job id, asked for by another tenant (or by no tenant): acme's run goes on.
    expect(scope.run('beta', () => sut.request('j1', at))).toBe(false);
    expect(sut.request('j1', at)).toBe(false);
    expect(runOfA.signal.aborted).toBe(false);
    expect(scope.run('acme', () => sut.request('j1', at))).toBe(true);
    expect(runOfA.signal.aborted).toBe(true);

    // beta's remembered request for j2 does not stop acme's run of j2 when it starts; beta's own does stop.
    scope.run('beta', () => sut.request('j2', at));
    expect(scope.run('acme', () => sut.watch('j2')).signal.aborted).toBe(false);
    expect(scope.run('beta', () => sut.watch('j2')).signal.aborted).toBe(true);
  });
});
