/** Files and command line of a pytest run: one module per test, so one broken test sinks none. */
import type { JunitCase } from './junit';
import type { SandboxTest, TestStatus } from './types';

// Per-test time limit enforced inside pytest with SIGALRM, so a looping test fails alone while
// the rest of the suite goes on; the suite limit outside kills whatever is left.
const CONFTEST = `import os, signal, stat
import pytest

_LIMIT = float(os.environ.get("STEPWISE_TEST_TIMEOUT_S", "5"))
_REPORT_CAP = 8 * 1024 * 1024


class StepwiseTimeout(BaseException):
    """Raised in a test that runs past its limit; BaseException so the test cannot swallow it."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Tells the host which test starts, so its watchdog can judge a test that hangs."""
    try:
        os.write(3, ('{"start": "%s"}\\n' % item.nodeid.replace("\\\\", "/").replace('"', "'")).encode())
    except OSError:
        pass
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    def on_alarm(signum, frame):
        raise StepwiseTimeout("STEPWISE_TIMEOUT: the test ran longer than %.1f s" % _LIMIT)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, _LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_unconfigure(config):
    """Sends the JUnit report to the host over the results channel (fd 3, a socket the host
    created); the host never opens a file this process could have replaced. The report is read
    here without following links, only as a regular file and only up to a cap, so a test that
    turned it into a FIFO or a link to /dev/zero gets no verdict instead of a hang."""
    try:
        fd = os.open(os.environ["STEPWISE_REPORT"], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        data = os.read(fd, _REPORT_CAP)
        while data:
            data = data[os.write(3, data) :]
    except OSError:
        pass
    finally:
        os.close(fd)


def pytest_collection_modifyitems(items):
    """The module under test is star-imported into every test module; its own functions named
    test_* are the code under test, never tests (they would fail for want of fixtures)."""
    items[:] = [i for i in items if getattr(getattr(i, "function", None), "__module__", None) != "target"]
`;

export function testModuleName(index: number): string {
  return `test_${String(index).padStart(4, '0')}`;
}

/** The files of a pytest run (target.py, conftest.py, one module per test) and the test files. */
export function pythonSuiteFiles(
  code: string,
  tests: SandboxTest[],
): { files: Record<string, string>; testFiles: string[] } {
  const files: Record<string, string> = { 'target.py': code, 'conftest.py': CONFTEST };
  const testFiles = tests.map((t, i) => {
    const file = `${testModuleName(i)}.py`;
    files[file] = `import pytest  # noqa: F401\nfrom target import *  # noqa: F401,F403\n\n${t.source}\n`;
    return file;
  });
  return { files, testFiles };
}

/** pytest's command line; conftest.py sends the JUnit report over the results channel (fd 3). */
export function pytestArgs(
  inDir: string,
  files: string[],
  timeoutMs: number,
): { args: string[]; env: Record<string, string> } {
  return {
    args: [
      '-m',
      'pytest',
      '-q',
      '-p',
      'no:cacheprovider',
      '--continue-on-collection-errors',
      '-o',
      'junit_family=xunit1',
      '-o',
      'junit_logging=all',
      '--junitxml=report.xml',
      '--tb=short',
      '--rootdir',
      inDir,
      ...files.map((f) => `${inDir}/${f}`),
    ],
    env: {
      STEPWISE_TEST_TIMEOUT_S: String(timeoutMs / 1000),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONPATH: inDir,
      STEPWISE_REPORT: 'report.xml',
    },
  };
}

/**
 * Whether a pytest item is one of the test's own: named as the test (a parametrized test's items
 * are `name[...]`), or a test function or class the test's source defines at its top level. The
 * source is the host's (written before the code under test loads), so a test the code slips into
 * the module at run time is none of these.
 */
function ownItem(test: SandboxTest | undefined, item: string, testClass?: string): boolean {
  if (!test) return false;
  const base = item.replace(/\[.*$/s, '');
  if (testClass === undefined && (base === test.name || item === test.name)) return true;
  const defined = testClass ?? base;
  if (!/^[A-Za-z_]\w*$/.test(defined)) return false;
  const keyword = testClass === undefined ? '(?:async\\s+)?def' : 'class';
  return new RegExp(`^${keyword}\\s+${defined}\\b`, 'm').test(test.source);
}

/**
 * The index of the test a JUnit case reports on, by node id: its module is test_NNNN (with a test
 * class: test_NNNN.Class) and its item is one the test itself defines, so a test the code under
 * test slipped into the module reports on nothing. A module that failed to import reports under the
 * module's own name.
 */
export function caseIndex(c: JunitCase, tests: SandboxTest[]): number | undefined {
  const module = /^test_(\d{4})(?:\.([A-Za-z_]\w*))?$/.exec(c.classname);
  if (module) return ownItem(tests[Number(module[1])], c.name, module[2]) ? Number(module[1]) : undefined;
  const broken = c.classname === '' ? /^test_(\d{4})$/.exec(c.name) : null;
  return broken ? Number(broken[1]) : undefined;
}

/** The index of the test a pytest node id (`test_NNNN.py::name` or `::Class::name`) names, if it is one of `tests`. */
export function nodeIndex(nodeId: string, tests: SandboxTest[]): number | undefined {
  const m = /^test_(\d{4})\.py::(?:([A-Za-z_]\w*)::)?(.*)$/.exec(nodeId);
  return m && ownItem(tests[Number(m[1])], m[3], m[2]) ? Number(m[1]) : undefined;
}

export function pythonStatus(c: JunitCase): TestStatus {
  const text = `${c.message}\n${c.details}`;
  if (c.outcome === 'passed') return 'passed';
  if (text.includes('STEPWISE_TIMEOUT')) return 'timeout';
  // A module that fails to import is a collection error: the test never ran.
  if (c.outcome === 'error' && (/collection failure/i.test(c.message) || c.classname === ''))
    return 'uncollectable';
  if (c.outcome === 'failure') return 'failed';
  return 'error';
}
