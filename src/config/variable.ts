import type { z } from 'zod';
import { ConfigError } from './config-error';
import type { SectionId } from './sections';
import type { ValueSchema } from './values';

/**
 * The declaration machinery: a variable (name, value schema, default, docs), a value derived from
 * the environment, and a combination of variables. src/config/variables.ts declares the service's
 * configuration as a tree of these; the Config type is read off that tree (`Resolved`), the loader
 * walks it (`resolveTree`), and the docs are rendered from its variables (`variablesOf`).
 */

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

export type Env = Record<string, string | undefined>;

/** What resolving a node may ask for. */
export interface ReadContext {
  readonly env: Env;
  readonly nodeEnv: NodeEnv;
  /** Another declared variable's value, read once (and refused like any other). */
  value(name: string): unknown;
}

/**
 * A default, written as it would be in the environment (it goes through the variable's schema, so
 * its bounds hold for it too): one text, one per NODE_ENV (`otherwise` for the rest), or computed
 * from other variables (then `documented` says what it is, for the docs).
 */
export type DefaultRule =
  | string
  | (Partial<Record<NodeEnv, string>> & { readonly otherwise: string })
  | { readonly compute: (context: ReadContext) => string; readonly documented: string };

export interface VariableSpec<S extends ValueSchema = ValueSchema> {
  /** The environment variable. */
  readonly name: string;
  /** The table of docs/configuration.md (and block of .env.example) it is listed in. */
  readonly section: SectionId;
  /** What it does, for the configuration table: Markdown, one paragraph, no `|`. */
  readonly description: string;
  /** How its text is read and checked: one of src/config/values.ts. */
  readonly schema: S;
  readonly default?: DefaultRule;
  /** Without a default: what leaving it unset means (Markdown, for the docs' Default column). */
  readonly unset?: string;
  /** Without a default, the value is `undefined`; `null` when this says so. */
  readonly whenUnset?: null;
  /** The value .env.example shows, when not the default (required without a default). */
  readonly example?: string;
}

export interface Variable<T> extends VariableSpec {
  readonly kind: 'variable';
  resolve(context: ReadContext): T;
}

/** A configuration value computed from the environment rather than read from one variable. */
export interface Derived<T> {
  readonly kind: 'derived';
  resolve(context: ReadContext): T;
}

/** One value made of several variables (declared inside it, so they are listed and checked like any other). */
export interface Combined<T, Parts extends Tree = Tree> {
  readonly kind: 'combined';
  readonly parts: Parts;
  resolve(context: ReadContext): T;
}

export type Node = Variable<unknown> | Derived<unknown> | Combined<unknown>;
export interface Tree {
  readonly [key: string]: Node | Tree;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The configuration a tree of declarations resolves to: a variable that may be unset becomes an optional property. */
export type Resolved<N> = N extends { resolve(context: ReadContext): infer T }
  ? T
  : Simplify<
      { -readonly [K in keyof N as undefined extends Resolved<N[K]> ? never : K]: Resolved<N[K]> } & {
        -readonly [K in keyof N as undefined extends Resolved<N[K]> ? K : never]?: Resolved<N[K]>;
      }
    >;

export function variable<S extends ValueSchema>(spec: VariableSpec<S> & { default: DefaultRule }): Variable<z.output<S>>;
export function variable<S extends ValueSchema>(spec: VariableSpec<S> & { whenUnset: null }): Variable<z.output<S> | null>;
export function variable<S extends ValueSchema>(spec: VariableSpec<S>): Variable<z.output<S> | undefined>;
export function variable(spec: VariableSpec): Variable<unknown> {
  return { ...spec, kind: 'variable', resolve: (context) => context.value(spec.name) };
}

export function derived<T>(compute: (context: ReadContext) => T): Derived<T> {
  return { kind: 'derived', resolve: compute };
}

export function combined<Parts extends Tree, T>(parts: Parts, combine: (values: Resolved<Parts>, context: ReadContext) => T): Combined<T, Parts> {
  return { kind: 'combined', parts, resolve: (context) => combine(resolveTree(parts, context) as Resolved<Parts>, context) };
}

function isNode(entry: Node | Tree): entry is Node {
  return typeof entry.kind === 'string';
}

/** Every variable of a tree, in declaration order (those inside combinations included). */
export function variablesOf(tree: Tree): Variable<unknown>[] {
  return Object.values(tree).flatMap((entry) => {
    if (!isNode(entry)) return variablesOf(entry);
    if (entry.kind === 'combined') return variablesOf(entry.parts);
    return entry.kind === 'variable' ? [entry] : [];
  });
}

/** Resolves every node of a tree in declaration order; the first refusal stops it. */
export function resolveTree(tree: Tree, context: ReadContext): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tree).map(([key, entry]) => [key, isNode(entry) ? entry.resolve(context) : resolveTree(entry, context)]));
}

/** A context over `env` in which each variable of `variables` is read at most once. */
export function readContext(env: Env, variables: readonly Variable<unknown>[]): ReadContext {
  const byName = new Map(variables.map((declared) => [declared.name, declared]));
  const values = new Map<string, unknown>();
  const context: ReadContext = {
    env,
    get nodeEnv() {
      return context.value('NODE_ENV') as NodeEnv;
    },
    value(name) {
      if (!values.has(name)) {
        const declared = byName.get(name);
        if (!declared) throw new Error(`${name} is not a declared configuration variable (src/config/variables.ts)`);
        values.set(name, readVariable(declared, context));
      }
      return values.get(name);
    },
  };
  return context;
}

/** The variable's value: its trimmed text, else its default, through its schema; unset text counts as unset. */
export function readVariable(declared: VariableSpec, context: ReadContext): unknown {
  const text = context.env[declared.name]?.trim() || defaultText(declared.default, context);
  if (text === undefined) return declared.whenUnset;
  const result = declared.schema.safeParse(text);
  if (!result.success) throw new ConfigError(declared.name, result.error.issues[0]?.message ?? 'is invalid');
  return result.data;
}

function defaultText(rule: DefaultRule | undefined, context: ReadContext): string | undefined {
  if (rule === undefined || typeof rule === 'string') return rule;
  if ('compute' in rule) return rule.compute(context);
  return rule[context.nodeEnv] ?? rule.otherwise;
}
