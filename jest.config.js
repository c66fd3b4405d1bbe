// Test tiers (docs/architecture.md, "Layout"): unit specs next to the code, integration specs next to the
// adapters they exercise (real services), end-to-end suites under test/e2e.
const moduleNameMapper = {
  '^@fetcher/engine$': '<rootDir>/libs/engine/src/index.ts',
  '^@fetcher/engine/memory$': '<rootDir>/libs/engine/src/memory/index.ts',
  '^@fetcher/connectors$': '<rootDir>/libs/connectors/src/index.ts',
  '^@fetcher/platform$': '<rootDir>/libs/platform/src/index.ts',
  '^@fetcher/platform/testing$': '<rootDir>/libs/platform/src/testing/index.ts',
  '^@fetcher/contracts$': '<rootDir>/libs/contracts/src/index.ts',
  '^@fetcher/manager$': '<rootDir>/apps/manager/src/index.ts',
  '^@fetcher/manager/testing$': '<rootDir>/apps/manager/src/testing/index.ts',
  '^@fetcher/worker$': '<rootDir>/apps/worker/src/index.ts',
  '^@fetcher/worker/testing$': '<rootDir>/apps/worker/src/testing/index.ts',
  '^@fetcher/mongo-test-server$': '<rootDir>/tools/mongo-test-server/src/index.ts',
  '^@fetcher/tenant-manager-test-server$': '<rootDir>/tools/tenant-manager-test-server/src/index.ts',
};
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] };
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/engine/src/testing/engine-error-equality.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts', '<rootDir>/test/deploy/**/*.int-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts', '<rootDir>/libs/engine/src/testing/engine-error-equality.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'],
    },
    {
      ...common,
      displayName: 'chaos',
      testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'],
    },
    {
      // Long chaos runs (bench/chaos.sh): not part of npm test.
      ...common,
      displayName: 'chaos-bench',
      testMatch: ['<rootDir>/bench/chaos/**/*.bench-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'],
    },
  ],
};
