import * as vscode from 'vscode';
import { findFunctions, languageForFile, type FoundFunction } from '../../../core/tests/functions';

export const CODE_SELECTOR: vscode.DocumentSelector = [
  { language: 'python' },
  { language: 'javascript' },
  { language: 'typescript' },
  { language: 'typescriptreact' },
  { language: 'javascriptreact' },
];

/** Functions of a document, parsed once per document version. */
export class FunctionIndex {
  private readonly cache = new Map<string, { version: number; functions: Promise<FoundFunction[]> }>();

  functionsOf(document: vscode.TextDocument): Promise<FoundFunction[]> {
    const key = document.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === document.version) return hit.functions;
    const language = languageForFile(document.fileName) ?? languageForId(document.languageId);
    const functions = language ? findFunctions(document.getText(), language) : Promise.resolve([]);
    this.cache.set(key, { version: document.version, functions });
    return functions;
  }

  forget(document: vscode.TextDocument): void {
    this.cache.delete(document.uri.toString());
  }
}

function languageForId(id: string) {
  if (id === 'python') return 'python' as const;
  if (id === 'javascript' || id === 'javascriptreact') return 'javascript' as const;
  if (id === 'typescript') return 'typescript' as const;
  if (id === 'typescriptreact') return 'tsx' as const;
  return undefined;
}

/** "Reason & generate tests" above every function, found by the tree-sitter grammar of the file. */
export class ReasonCodeLensProvider implements vscode.CodeLensProvider {
  constructor(private readonly index: FunctionIndex) {}

  async provideCodeLenses(
    document: vscode.TextDocument,
    token: vscode.CancellationToken,
  ): Promise<vscode.CodeLens[]> {
    const functions = await this.index.functionsOf(document);
    if (token.isCancellationRequested) return [];
    return functions.map((fn) => {
      const line = document.lineAt(fn.nameLine);
      return new vscode.CodeLens(line.range, {
        title: '$(beaker) Reason & generate tests',
        tooltip: `Five-stage reasoning about ${fn.qualifiedName}, with tests written at every stage and run in a sandbox`,
        command: 'stepwise.tests.generate',
        arguments: [document.uri, fn.qualifiedName],
      });
    });
  }
}
