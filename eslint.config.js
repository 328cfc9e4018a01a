import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      'test-artifacts/',
      '.bench/',
      'eslint.config.js',
      'scripts/**/*.mjs',
      '.scratch/',
      'clients/python/.venv/',
      'clients/rust/target/',
      // written by `npm run clients:generate`, checked by the drift test
      'clients/*/src/generated/',
      'clients/*/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify hooks are async by contract even when a given hook has nothing to await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after'],
            },
          ],
        },
      ],
    },
  },
  {
    // SQLite needs BEGIN IMMEDIATE for a write transaction to wait for another process's lock:
    // every writer goes through src/db/write-transaction.ts.
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction'][arguments.length=0]",
          message:
            'Use writeTransaction(db, fn) from src/db/write-transaction.ts (BEGIN IMMEDIATE on SQLite).',
        },
      ],
    },
  },
);
