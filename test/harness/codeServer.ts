import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CODE_SERVER_ENTRY, NODE24, ROOT, requireInstalled } from './paths';

export interface CodeServerOptions {
  /** Folder opened in the workbench. */
  workspace: string;
  /** Extensions folder (a VSIX installed into it is what the UI tests use). */
  extensionsDir?: string;
  /** The integration layer needs the smoke-test driver, or the workbench ignores the test payload. */
  smokeTestDriver?: boolean;
  /** Environment the extension host inherits (e.g. where to write test results). */
  env?: Record<string, string>;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  log?: (line: string) => void;
}

const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `check` until it returns true or the deadline passes. A check that throws counts as "not
 * yet"; the last error is kept for the timeout message, since it usually says why.
 */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const done = await check().catch((err: unknown) => {
      lastError = err;
      return false;
    });
    if (done) return;
    if (Date.now() > deadline) {
      // Playwright's messages carry a call log after the first line; the first line says enough.
      const why = lastError
        ? ` Last attempt: ${String((lastError as Error).message ?? lastError).split('\n')[0]}`
        : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A code-server process this harness started, and only that one. */
export class CodeServer {
  private exited = false;

  private constructor(
    readonly port: number,
    readonly child: ChildProcess,
    readonly dirs: { userData: string; extensions: string; xdg: string },
  ) {
    child.on('exit', () => (this.exited = true));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(options: CodeServerOptions): Promise<CodeServer> {
    requireInstalled();
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-cs-'));
    const dirs = {
      userData: path.join(base, 'user-data'),
      extensions: options.extensionsDir ?? path.join(base, 'extensions'),
      xdg: path.join(base, 'xdg'),
    };
    for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
    fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(dirs.userData, 'User', 'settings.json'),
      JSON.stringify({ ...DEFAULT_SETTINGS, ...options.settings }, null, 2),
    );
    const port = await freePort();
    const args = [
      CODE_SERVER_ENTRY,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
      options.workspace,
    ];
    const log = options.log ?? (() => undefined);
    log(`starting: ${NODE24} ${args.join(' ')}`);
    const child = spawn(NODE24, args, {
      cwd: ROOT,
      // Its own process group, so stopping it takes every process it started and nothing else.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_CONFIG_HOME: dirs.xdg, XDG_DATA_HOME: dirs.xdg, ...options.env },
    });
    child.stdout?.on('data', (d: Buffer) =>
      d
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => log(`[code-server] ${l}`)),
    );
    child.stderr?.on('data', (d: Buffer) =>
      d
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => log(`[code-server] ${l}`)),
    );
    const server = new CodeServer(port, child, dirs);
    // A detached group outlives an interrupted runner, so Ctrl-C / SIGTERM take it down first.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        if (!server.exited && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
        process.exit(130);
      });
    }
    try {
      await until(
        'code-server /healthz',
        async () => {
          if (server.exited) throw new Error('code-server exited during start-up');
          return (await fetch(`${server.url}/healthz`)).ok;
        },
        60_000,
      );
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  async stop(): Promise<void> {
    if (this.exited || this.child.pid === undefined) return;
    const pid = this.child.pid;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 5000);
    await gone;
    clearTimeout(timer);
  }
}

/** Installs a VSIX into an extensions folder with code-server's own installer. */
export async function installVsix(
  vsix: string,
  extensionsDir: string,
  log: (l: string) => void = () => undefined,
): Promise<void> {
  requireInstalled();
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-xdg-'));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      NODE24,
      [CODE_SERVER_ENTRY, '--install-extension', vsix, '--extensions-dir', extensionsDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, XDG_CONFIG_HOME: xdg, XDG_DATA_HOME: xdg },
      },
    );
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => {
      log(output.trim());
      if (code === 0) resolve();
      else reject(new Error(`Installing ${vsix} failed (exit ${code}): ${output.trim()}`));
    });
  });
}

/** A fresh copy of the sample workspace, so tests never change the repository's examples. */
export function copyWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ws-'));
  fs.cpSync(path.join(ROOT, 'examples'), dir, { recursive: true });
  return dir;
}
