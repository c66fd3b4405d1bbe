import { withFaults } from './with-faults';

class Counter {
  #count = 0;
  add(n: number): Promise<number> {
    this.#count += n;
    return Promise.resolve(this.#count);
  }
  get count(): number {
    return this.#count;
  }
}

describe(withFaults.name, () => {
  it('passes calls no rule picks to the adapter itself, private state included', async () => {
    const sut = withFaults(new Counter());
    expect(await sut.add(2)).toBe(2);
    expect(sut.count).toBe(2);
  });

  it('fails the next N calls without reaching the adapter, then lets calls through', async () => {
    const sut = withFaults(new Counter());
    sut.faults.failNext('add', new Error('down'), 2);
    await expect(sut.add(1)).rejects.toThrow('down');
    await expect(sut.add(1)).rejects.toThrow('down');
    expect(await sut.add(1)).toBe(1);
  });

  it('fails the calls a predicate picks, with a fresh error each, until healed', async () => {
    const sut = withFaults(new Counter());
    sut.faults.failWhen('add', (n) => n > 10, () => new RangeError('too big'));
    await expect(sut.add(11)).rejects.toBeInstanceOf(RangeError);
    expect(await sut.add(3)).toBe(3);
    sut.faults.failAlways('add', new Error('gone'));
    await expect(sut.add(1)).rejects.toThrow('gone');
    sut.faults.heal('add');
    expect(await sut.add(11)).toBe(14);
  });

  it('lets a spec replace a method of the wrapped adapter', async () => {
    const sut = withFaults(new Counter());
    sut.add = () => Promise.resolve(-1);
    expect(await sut.add(5)).toBe(-1);
    expect(sut.count).toBe(0);
  });
});
