// Starts `attribc lsp` for .attr files; everything the editor shows comes from it.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('attrib');
  const args = ['lsp'];
  if (config.get('noStdlib')) args.push('--no-stdlib');
  const server = { command: config.get('attribcPath') || 'attribc', args };
  client = new LanguageClient('attrib', 'attrib rules', server, {
    documentSelector: [{ scheme: 'file', language: 'attr' }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.attr') },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
