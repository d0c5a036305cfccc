// A minimal VS Code client for `podlint lsp`: it starts the server for YAML
// and JSON files and leaves everything else to VS Code's LSP support.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('podlint');
  const serverOptions = {
    command: config.get('path', 'podlint'),
    args: ['lsp', ...config.get('args', [])],
  };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'json' },
    ],
  };
  client = new LanguageClient('podlint', 'podlint', serverOptions, clientOptions);
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
