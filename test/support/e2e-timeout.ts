// End-to-end suites start the built apps as child processes. See integration-timeout.ts.
jest.setTimeout(120_000);
