// Integration suites talk to real services and spawn processes; a per-project `testTimeout` is ignored
// by jest-circus, so the limit is set here. It bounds a hung test; it asserts nothing about speed.
jest.setTimeout(60_000);
