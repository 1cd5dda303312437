/**
 * What a SQL span shows of its statement: the text with every literal replaced by `?` and its
 * whitespace collapsed, and a short summary for the span's name. The service's statements take
 * their values as parameters (`$1`), which never reach a span; the literals are replaced too, so a
 * value spelt into a text (a lock's key, say) never does either.
 */
export interface StatementSummary {
  /** The statement without literals, on one line. */
  text: string;
  /** The operation of the statement as a whole: SELECT, INSERT, UPDATE, DELETE, CALL, BEGIN... */
  operation: string;
  /** The table that operation names directly, when it names one. */
  collection?: string;
  /** The span's name: each table written (`INSERT journal`), then the main operation and its table. */
  summary: string;
}

/** The longest summary (the OpenTelemetry conventions ask for at most 255 characters). */
const MAX_SUMMARY = 255;
/** Distinct texts remembered; the service's statements are a few hundred. */
const MAX_CACHED = 1_000;

const cache = new Map<string, StatementSummary>();

/** The summary of `text`, computed once per distinct text. */
export function summarizeStatement(text: string): StatementSummary {
  let found = cache.get(text);
  if (found === undefined) {
    found = summarize(text);
    if (cache.size < MAX_CACHED) cache.set(text, found);
  }
  return found;
}

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

interface Token {
  word?: string;
  raw: string;
  depth: number;
}

function summarize(original: string): StatementSummary {
  const { text, tokens } = scan(original);
  const words = tokens.filter((t) => t.word !== undefined);
  const upper = (t: Token | undefined) => t?.word?.toUpperCase();
  // The names a WITH clause defines (`WITH name AS (`, `, name AS MATERIALIZED (`) are not tables.
  const defined = new Set<string>();
  for (let i = 1; i < tokens.length - 2; i++) {
    const before = tokens[i - 1].raw.toUpperCase();
    const after = tokens[i + 2];
    if (
      tokens[i].word &&
      tokens[i].depth === 0 &&
      (before === 'WITH' || before === 'RECURSIVE' || before === ',') &&
      upper(tokens[i + 1]) === 'AS' &&
      (after.raw === '(' || upper(after) === 'MATERIALIZED' || upper(after) === 'NOT')
    ) {
      defined.add(tokens[i].word!.toLowerCase());
    }
  }
  // A name followed by `(` is a function call, except after INTO, where a column list follows.
  const tableAt = (i: number, columns = false): string | undefined => {
    const t = tokens[i];
    if (!t?.word || (!columns && tokens[i + 1]?.raw === '(')) return undefined;
    if (NOT_TABLES.has(t.word.toUpperCase())) return undefined;
    return defined.has(t.word.toLowerCase()) ? undefined : t.word;
  };

  const parts: string[] = [];
  const add = (part: string) => {
    if (!parts.includes(part)) parts.push(part);
  };
  for (let i = 0; i < tokens.length; i++) {
    const w = upper(tokens[i]);
    if (w === 'INSERT' && upper(tokens[i + 1]) === 'INTO') add(withTable('INSERT', tableAt(i + 2, true)));
    else if (w === 'MERGE' && upper(tokens[i + 1]) === 'INTO') add(withTable('MERGE', tableAt(i + 2, true)));
    else if (w === 'UPDATE' && !LOCKING.has(upper(tokens[i - 1]) ?? '')) add(withTable('UPDATE', tableAt(i + 1)));
    else if (w === 'DELETE' && upper(tokens[i + 1]) === 'FROM') add(withTable('DELETE', tableAt(i + 2)));
  }

  // The statement's own operation: its first word, or after a WITH clause the first word at the top level.
  let operation = upper(words[0]) ?? '';
  if (operation === 'START' && upper(words[1]) === 'TRANSACTION') operation = 'START TRANSACTION';
  let collection: string | undefined;
  let mainAt = tokens.indexOf(words[0]);
  if (operation === 'WITH') {
    mainAt = tokens.findIndex((t, i) => i > 0 && t.depth === 0 && t.word !== undefined && MAIN.has(t.word.toUpperCase()));
    operation = mainAt >= 0 ? tokens[mainAt].word!.toUpperCase() : 'WITH';
  }
  if (operation === 'SELECT' || operation === 'CALL' || operation === 'VALUES') {
    const depth = tokens[mainAt]?.depth ?? 0;
    if (operation === 'CALL') collection = tableAt(mainAt + 1) ?? tokens[mainAt + 1]?.word;
    for (let i = mainAt + 1; operation === 'SELECT' && i < tokens.length; i++) {
      if (tokens[i].depth === depth && upper(tokens[i]) === 'FROM') {
        collection = tableAt(i + 1);
        break;
      }
    }
    add(withTable(operation, collection));
  } else if (WRITES.has(operation)) {
    collection = operation === 'UPDATE' ? tableAt(mainAt + 1) : tableAt(mainAt + 2, operation !== 'DELETE');
  } else if (parts.length === 0) {
    add(operation || 'SQL');
  }
  let summary = parts.join(' ');
  if (summary.length > MAX_SUMMARY) summary = summary.slice(0, MAX_SUMMARY);
  return { text, operation: operation || 'SQL', ...(collection ? { collection } : {}), summary };
}

/** Words before UPDATE that make it a row lock or a conflict action, not a statement. */
const LOCKING = new Set(['FOR', 'KEY', 'DO']);
const NOT_TABLES = new Set(['ONLY', 'LATERAL', 'SELECT', 'VALUES', 'SET']);
const MAIN = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'VALUES', 'TABLE']);

const withTable = (operation: string, table: string | undefined) => (table ? `${operation} ${table}` : operation);

/** Walks the text once: literals become `?`, whitespace and comments one space; words with their depth. */
function scan(sql: string): { text: string; tokens: Token[] } {
  let out = '';
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  const space = () => {
    if (out.length && !out.endsWith(' ')) out += ' ';
  };
  while (i < sql.length) {
    const c = sql[i];
    const rest = sql.slice(i, i + 2);
    if (/\s/.test(c)) {
      space();
      i++;
    } else if (rest === '--') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      space();
    } else if (rest === '/*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      space();
    } else if (c === "'" || ((c === 'E' || c === 'e') && sql[i + 1] === "'" && !isWordChar(sql[i - 1]))) {
      // '...' with '' inside, or E'...' with backslash escapes too.
      const escapes = c !== "'";
      i += escapes ? 2 : 1;
      while (i < sql.length) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
      out += '?';
      tokens.push({ raw: '?', depth });
    } else if (c === '$' && /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(sql.slice(i)) && !isWordChar(sql[i - 1])) {
      // A dollar-quoted string: $$...$$ or $tag$...$tag$.
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
      out += '?';
      tokens.push({ raw: '?', depth });
    } else if (c === '$' && /\d/.test(sql[i + 1] ?? '')) {
      // A parameter: kept, it holds no value.
      const m = /^\$\d+/.exec(sql.slice(i))![0];
      out += m;
      tokens.push({ raw: m, depth });
      i += m.length;
    } else if (c === '"') {
      const end = sql.indexOf('"', i + 1);
      const raw = sql.slice(i, end < 0 ? sql.length : end + 1);
      out += raw;
      tokens.push({ word: raw.slice(1, -1), raw, depth });
      i += raw.length;
    } else if (/\d/.test(c) || (c === '.' && /\d/.test(sql[i + 1] ?? ''))) {
      const m = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(sql.slice(i))![0];
      out += '?';
      tokens.push({ raw: '?', depth });
      i += m.length;
    } else if (isWordStart(c)) {
      const m = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*(\.[A-Za-z_][A-Za-z0-9_$]*)?/.exec(sql.slice(i))![0];
      out += m;
      tokens.push({ word: m, raw: m, depth });
      i += m.length;
    } else {
      if (c === '(') {
        tokens.push({ raw: c, depth });
        depth++;
      } else if (c === ')') {
        depth = Math.max(0, depth - 1);
        tokens.push({ raw: c, depth });
      } else tokens.push({ raw: c, depth });
      out += c;
      i++;
    }
  }
  return { text: out.trim(), tokens };
}

const isWordStart = (c: string | undefined) => c !== undefined && /[A-Za-z_\u0080-\uffff]/.test(c);
const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
