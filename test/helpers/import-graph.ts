// The import graph of src/, read with the TypeScript parser (no type checking): every static import and
// re-export, and every import() with a literal specifier, each marked type-only or not.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  /** Importing file, relative to the root, with "/" separators. */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file relative to the root when the specifier is relative, else null (a package or node: module). */
  to: string | null;
  /** Erased at compile time (`import type`, `export type`, or every named binding `type`). */
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node))
    return (
      node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly))
    );
  const clause = node.importClause;
  if (!clause) return false; // import "x": run for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const named = clause.namedBindings;
  return named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** The import graph of every .ts file under `root/dir`. */
export function importGraph(root: string, dir = "src"): ImportGraph {
  const files = sourceFiles(join(root, dir)).map((f) => relative(root, f).split("\\").join("/"));
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const text = readFileSync(join(root, from), "utf8");
    const sf = ts.createSourceFile(from, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const add = (specifier: string, typeOnly: boolean) => {
      const to = specifier.startsWith(".")
        ? relative(root, resolve(root, dirname(from), specifier))
            .split("\\")
            .join("/")
        : null;
      edges.push({ from, specifier, to, typeOnly });
    };
    const visit = (node: ts.Node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnly(node));
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) add(node.arguments[0].text, false);
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(node.argument.literal.text, true);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { files, edges };
}

/** Strongly connected components of more than one file (or a file importing itself): the import cycles. */
export function importCycles(graph: ImportGraph, opts: { includeTypeOnly: boolean }): string[][] {
  const next = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const e of graph.edges) if (e.to !== null && next.has(e.to) && (opts.includeTypeOnly || !e.typeOnly)) next.get(e.from)?.push(e.to);
  // Tarjan's algorithm.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || next.get(v)?.includes(v)) out.push(scc.sort());
    }
  };
  for (const f of graph.files) if (!idx.has(f)) strong(f);
  return out.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** Folders and edges between src/ files (each importing file → imported file counted once). */
export function graphFigures(graph: ImportGraph): { files: number; folders: number; fileEdges: number; typeOnlyEdges: number; folderEdges: number } {
  const folder = (f: string) => dirname(f);
  const fileEdges = new Set<string>();
  const valueEdges = new Set<string>();
  const folderEdges = new Set<string>();
  for (const e of graph.edges) {
    if (e.to === null || !graph.files.includes(e.to)) continue;
    fileEdges.add(`${e.from}>${e.to}`);
    if (!e.typeOnly) valueEdges.add(`${e.from}>${e.to}`);
    if (folder(e.from) !== folder(e.to)) folderEdges.add(`${folder(e.from)}>${folder(e.to)}`);
  }
  return {
    files: graph.files.length,
    folders: new Set(graph.files.map(folder)).size,
    fileEdges: fileEdges.size,
    typeOnlyEdges: fileEdges.size - valueEdges.size,
    folderEdges: folderEdges.size,
  };
}
