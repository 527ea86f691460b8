// Starts `rqc lsp` for .rq files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("rql").get("server.path") || "rqc";
  client = new LanguageClient(
    "rql",
    "RQL",
    { command, args: ["lsp"] },
    { documentSelector: [{ scheme: "file", language: "rql" }] }
  );
  context.subscriptions.push(client);
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
