/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 20000,
  reporters: ['default', '<rootDir>/test/support/summaryReporter.js'],
  globalSetup: '<rootDir>/test/support/globalSetup.js',
  globalTeardown: '<rootDir>/test/support/globalTeardown.js',
};
