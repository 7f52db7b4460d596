// The extension's static parts, without VS Code or npm packages: the manifest wires the language,
// the grammar and the server; every grammar pattern compiles; and the keyword patterns know the
// language's keywords (grammar/Attr.g4), so a new keyword without highlighting fails here.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const grammar = JSON.parse(fs.readFileSync(path.join(root, 'syntaxes', 'attr.tmLanguage.json'), 'utf8'));
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function patterns(node, out = []) {
  if (node && typeof node === 'object') {
    for (const key of ['match', 'begin', 'end']) if (typeof node[key] === 'string') out.push(node[key]);
    for (const value of Object.values(node)) patterns(value, out);
  }
  return out;
}

test('the manifest contributes the language, its grammar and the server setting', () => {
  const lang = manifest.contributes.languages.find((l) => l.id === 'attr');
  assert.deepStrictEqual(lang.extensions, ['.attr']);
  const g = manifest.contributes.grammars.find((x) => x.language === 'attr');
  assert.strictEqual(g.scopeName, grammar.scopeName);
  assert.ok(fs.existsSync(path.join(root, g.path)));
  assert.ok(fs.existsSync(path.join(root, lang.configuration)));
  assert.ok(manifest.contributes.configuration.properties['attrib.attribcPath']);
  assert.ok(manifest.dependencies['vscode-languageclient']);
});

test('every pattern of the grammar compiles', () => {
  const all = patterns(grammar);
  assert.ok(all.length > 10);
  for (const p of all) assert.doesNotThrow(() => new RegExp(p), p);
});

test('the keywords of grammar/Attr.g4 are highlighted', () => {
  const g4 = fs.readFileSync(path.join(root, '..', '..', 'grammar', 'Attr.g4'), 'utf8');
  const keywords = [...g4.matchAll(/^[A-Z_]+\s*:\s*'([a-z_]+)'\s*;/gm)].map((m) => m[1]);
  assert.ok(keywords.includes('override') && keywords.includes('disable'));
  const all = patterns(grammar).map((p) => new RegExp(p));
  for (const k of keywords) {
    assert.ok(all.some((re) => re.test(` ${k} x`)), `no pattern highlights '${k}'`);
  }
});

test('a regex after match is one regexp token, a slash elsewhere is division', () => {
  const begin = new RegExp(grammar.repository.regex.begin);
  assert.ok(begin.test('  match /NVRM: Xid/'));
  assert.ok(!begin.test('  when value / 2 > 45'));
});
