import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Entry points: the only modules that assemble the layers below them (commands/: the CLI's commands). */
const entryPoints = ['./src/app.ts', './src/cli.ts', './src/server.ts', './src/commands'];

/** The files of runs/ that run a job's steps on an executor; they reach the Jobs service through the runner port alone. */
const executorFiles = [
  'executor.ts',
  'job-run.ts',
  'logged-step.ts',
  'step-runner.ts',
  'step-process.ts',
  'step-output.ts',
  'step-folders.ts',
  'step-sandbox.ts',
  'plan-view.ts',
  'tool-binaries.ts',
  'prerequisites.ts',
  'stop-reason.ts',
  'run-report.ts',
  'runner-client.ts',
];

/**
 * The other files of runs/ the executor side may import: the runner port, and leaves that import
 * nothing of the service (a flow's reading, a run's variables, the paths of a run's pages). Every other file of runs/ is the
 * Jobs service's, which owns jobs and reads and writes the store through the engine's ServiceWork.
 */
const executorMayImport = ['runner-port.ts', 'flow.ts', 'run-variables.ts', 'run-paths.ts'];

/** The transition table, a leaf that imports nothing: the run report reads its status groups directly. */
const transitionTable = 'job-statuses.ts';

/** The executor side's files, but `file` when one is named. */
const executorSideBut = (file) => executorFiles.filter((one) => one !== file).map((one) => `./src/runs/${one}`);

/**
 * The direction of dependencies between the folders of src/ (see the README's architecture
 * section): each zone names a folder and the folders it must not import.
 */
const layers = [
  { target: './src/model', from: './src', except: ['./model'], message: 'model/ imports nothing else of the project.' },
  {
    target: [
      './src/model',
      './src/engine',
      './src/jsonapi',
      './src/graphql',
      './src/http',
      './src/policy',
      './src/store',
      './src/rsql',
      './src/quartz',
      './src/auth',
      './src/secrets',
    ],
    from: './src/resources',
    message: 'Only the entry points read the declarations; everything else receives the registry.',
  },
  {
    target: './src/engine',
    from: ['./src/http', './src/jsonapi', './src/graphql', ...entryPoints],
    message: 'The engine is HTTP-free and transport-free.',
  },
  {
    target: ['./src/jsonapi', './src/graphql', './src/http'],
    from: './src/engine',
    except: ['./index.ts'],
    message: 'The engine has one front door: src/engine/index.ts (a Session per request).',
  },
  {
    target: ['./src/jsonapi', './src/graphql', './src/http'],
    from: ['./src/store', './src/policy', './src/rsql', './src/secrets'],
    message: 'Transports reach the store, the policies and the filters through the engine.',
  },
  {
    target: './src/jsonapi',
    from: ['./src/http', './src/graphql', ...entryPoints],
    message: 'jsonapi/ is the wire format; HTTP calls it, not the other way.',
  },
  {
    target: './src/graphql',
    from: ['./src/http', './src/jsonapi', ...entryPoints],
    message: 'graphql/ is a transport beside jsonapi/: it calls the engine, and HTTP calls it.',
  },
  {
    target: './src/policy',
    from: ['./src/engine', './src/jsonapi', './src/graphql', './src/http', ...entryPoints],
    message: 'Policies are evaluated by the engine, not the reverse.',
  },
  {
    target: './src/releases',
    from: ['./src/engine', './src/jsonapi', './src/http', ...entryPoints],
    message: 'The release indexes sit below HTTP, which serves them.',
  },
  {
    target: './src/quartz',
    from: './src',
    except: ['./quartz'],
    message: 'quartz/ reads cron expressions, as rsql/ reads filters: it imports nothing of the layers that use it.',
  },
  {
    target: ['./src/store', './src/rsql'],
    from: ['./src/engine', './src/jsonapi', './src/graphql', './src/http', './src/policy', ...entryPoints],
    message: 'The store and the filter compiler sit below the engine.',
  },
  {
    target: executorSideBut(),
    from: './src/runs',
    except: [...executorFiles, ...executorMayImport, transitionTable].map((file) => `./${file}`),
    message:
      'The executor reaches the Jobs service through runs/runner-port.ts alone, in plain JSON, so the two may run apart; it reads no record itself.',
  },
  {
    target: executorSideBut(),
    from: ['./src/engine', './src/store', './src/resources'],
    message: 'The executor reads and writes no record: the Jobs service does, and the executor asks it through runs/runner-port.ts.',
  },
  {
    target: executorSideBut('run-report.ts'),
    from: `./src/runs/${transitionTable}`,
    message: 'The executor takes statuses through runs/runner-port.ts; only run-report.ts reads the transition table, a leaf, directly.',
  },
  {
    target: './src/http',
    from: './src/runs',
    except: ['./index.ts'],
    message: 'runs/ has one front door for HTTP: src/runs/index.ts.',
  },
  {
    target: './src/runs',
    from: ['./src/resources', './src/http', './src/jsonapi', './src/graphql'],
    message: 'runs/ sits below the transports and receives the registry: it imports no transport and no declaration.',
  },
  {
    target: './src/runs',
    from: './src/engine',
    except: ['./index.ts'],
    message: 'runs/ reaches the engine through its one door, src/engine/index.ts (ServiceWork: reads, and transactions in a unit of work).',
  },
  {
    target: ['./src/notifications', './src/git', './src/outbound', './src/terraform', './src/events'],
    from: ['./src/resources', './src/http', './src/jsonapi', './src/graphql', './src/commands'],
    message:
      'These folders serve the layers above them: they import no declaration, no transport and no command, and receive what they need.',
  },
];

export default tseslint.config(
  // deploy/ holds the web UI's env-config.js, a browser script of the UI's, not ours.
  { ignores: ['dist/', 'data/', 'node_modules/', 'deploy/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { maxDepth: Infinity }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layers }],
      'max-lines': ['error', { max: 300 }],
    },
  },
  {
    // app.ts assembles the HTTP service; everything else below it is free of Fastify.
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/app.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['fastify', '@fastify/*', 'fastify-*'], message: 'Only src/http speaks HTTP.' }] },
      ],
    },
  },
  {
    // Tests read response documents of every shape through an untyped body, and node:test's
    // describe/it return promises the runner itself tracks.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
