import { projectionFor } from './projection.mongodb';

const SNAPSHOT = ['_id', 'address', 'age', 'name'];

describe(projectionFor.name, () => {
  it('asks for whole documents when the request names every snapshot field (an expanded *)', () => {
    expect(projectionFor(['_id', 'address', 'age', 'name'], SNAPSHOT)).toBeUndefined();
    expect(projectionFor(['name', 'age', 'address', '_id'], SNAPSHOT)).toBeUndefined();
  });

  it('projects the requested fields and always _id', () => {
    expect(projectionFor(['age', 'name'], SNAPSHOT)).toEqual({ _id: 1, age: 1, name: 1 });
    expect(Object.keys(projectionFor(['name', 'age'], SNAPSHOT)!)).toEqual(['_id', 'age', 'name']);
  });

  it('projects when the request has a field the snapshot lacks, even with all the others', () => {
    expect(projectionFor([...SNAPSHOT, 'extra'], SNAPSHOT)).toEqual({ _id: 1, address: 1, age: 1, extra: 1, name: 1 });
  });

  it('projects dotted paths and drops those a requested parent already covers', () => {
    expect(projectionFor(['address.city'], SNAPSHOT)).toEqual({ _id: 1, 'address.city': 1 });
    expect(projectionFor(['address', 'address.city', 'address.geo.lat'], SNAPSHOT)).toEqual({ _id: 1, address: 1 });
    expect(projectionFor(['address.geo', 'address.geo.lat', 'address.zip'], SNAPSHOT)).toEqual({
      _id: 1,
      'address.geo': 1,
      'address.zip': 1,
    });
  });

  it('widens _id sub-paths to the whole _id', () => {
    expect(projectionFor(['_id.part', 'age'], SNAPSHOT)).toEqual({ _id: 1, age: 1 });
  });

  it('projects only _id for an empty field list', () => {
    expect(projectionFor([], SNAPSHOT)).toEqual({ _id: 1 });
    expect(projectionFor([], [])).toEqual({ _id: 1 });
  });
});
