import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      '.venv/**',
      'trainer/**',
      '.vscode-test/**',
      'test-output/**',
      '.cache/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Boundaries (CONTRIBUTING.md's map): arrows point from glue and panels towards the core, never back.
  {
    // The core must stay editor-independent: it serves the CLI, plain Node tests and the extension alike.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'src/core must not import vscode; put editor glue in src/vscode.' },
          ],
          patterns: [
            {
              regex: '(^|/)(vscode|cli|shared|webview)/',
              message:
                'src/core imports neither the editor glue, the CLI, the panel protocols nor the webviews: move the shared piece into src/core.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'the CLI runs without an editor: import src/core, not vscode.' },
          ],
          patterns: [
            {
              regex: '(^|/)(vscode|shared|webview)/',
              message:
                'the CLI is built on src/core only, not on the editor glue, the panel protocols or the webviews.',
            },
          ],
        },
      ],
    },
  },
  {
    // Panel protocols are types shared by the glue and the webviews; they may name core types, nothing more.
    files: ['src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'panel protocols are read by webviews too: no vscode here.' }],
          patterns: [
            {
              regex: '(^|/)core/',
              allowTypeImports: true,
              message: 'panel protocols take only types from src/core (`import type`), never its code.',
            },
            {
              regex: '(^|/)(vscode|cli)/',
              message: 'panel protocols import neither the editor glue nor the CLI.',
            },
          ],
        },
      ],
    },
  },
  {
    // Webviews run in the panel's sandboxed page: they speak to the host only through their protocol.
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'webviews cannot import vscode: talk to the host through the protocol.',
            },
          ],
          patterns: [
            {
              // The one exception: core text modules that are pure (type imports only, enforced
              // below), so the CLI and a panel say the same words from one source.
              regex: 'src/(core|vscode|cli)/(?!(judgment/verdictText|math/sampleSize)$)',
              message:
                'webviews import only their protocol (src/shared/protocols) and webview/shared: take core types through the protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    // Bundled into a panel as well as the CLI: it may import types only, so it stays free of Node and of the rest of the core.
    files: ['src/core/judgment/verdictText.ts', 'src/core/math/sampleSize.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '.',
              allowTypeImports: true,
              message: 'panels bundle this module: import types only (`import type`).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
  },
);
