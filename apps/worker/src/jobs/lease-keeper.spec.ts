import { FakeClock } from '../testing/fake-clock';
import { TestJobStore } from '../testing/test-job-store';
import { LeaseKeeper } from './lease-keeper';

describe(LeaseKeeper.name, () => {
  const setup = () => {
    const clock = new FakeClock('2026-03-01T10:00:00Z');
    const jobs = new TestJobStore();
    const expiresAt = new Date(clock.now().getTime() + 60_000);
    jobs.add('j', 'processing', { lease: { token: 't', owner: 'me', expiresAt } });
    const sut = new LeaseKeeper(jobs, clock, 'j', 't', 60_000, expiresAt);
    return { clock, jobs, sut };
  };

  it('extends the lease by one TTL from now', async () => {
    const { clock, jobs, sut } = setup();
    clock.advance(20_000);
    await sut.renew();
    sut.stop();
    expect(jobs.jobs.get('j')?.lease?.expiresAt).toEqual(new Date(clock.now().getTime() + 60_000));
    expect(sut.signal.aborted).toBe(false);
  });

  it('aborts the job when the lease belongs to someone else', async () => {
    const { jobs, sut } = setup();
    (jobs.jobs.get('j') as { lease: { token: string } }).lease.token = 'other';
    await sut.renew();
    expect(sut.lost).toBe(true);
    expect(sut.signal.aborted).toBe(true);
  });

  it('keeps the lease and reports a cancel the renewal found', async () => {
    const { jobs, sut } = setup();
    const asked = new Date('2026-03-01T09:59:59Z');
    const seen: Date[] = [];
    (jobs.jobs.get('j') as { cancelRequestedAt?: Date }).cancelRequestedAt = asked;
    const keeper = new LeaseKeeper(jobs, new FakeClock('2026-03-01T10:00:00Z'), 'j', 't', 60_000, new Date('2026-03-01T10:01:00Z'), (at) => seen.push(at));
    await keeper.renew();
    keeper.stop();
    sut.stop();
    expect(seen).toEqual([asked]);
    expect(keeper.lost).toBe(false);
    expect(keeper.signal.aborted).toBe(false);
  });

  it('retries a database error, and gives up once the lease has run out locally', async () => {
    const { clock, jobs, sut } = setup();
    jobs.renew = () => Promise.reject(new Error('db down'));
    clock.advance(20_000);
    await sut.renew();
    expect(sut.lost).toBe(false);
    clock.advance(41_000);
    await sut.renew();
    expect(sut.lost).toBe(true);
  });
});
