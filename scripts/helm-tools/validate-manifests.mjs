#!/usr/bin/env node
// Validates rendered Kubernetes manifests offline (scripts/check-helm.sh).
//
//   node validate-manifests.mjs FILE...     every YAML document of every FILE
//   node validate-manifests.mjs --self-test shows that the checks catch a misspelled field,
//                                           a wrong type and an unknown kind
//
// Each object is built with the kubernetes-models class of its apiVersion and kind (the
// Prometheus Operator's for monitoring.coreos.com) and checked with its .validate(): types,
// enums, required fields. An apiVersion/kind without a model is an error.
//
// .validate() does not reject fields the schema does not define (the models' schemas leave
// additionalProperties open), so every object is also walked against its model's JSON schema,
// following $ref, oneOf/anyOf/allOf, properties, items and additionalProperties, and every
// field the schema does not define is reported with its path. The schemas are the ones the
// models register with @kubernetes-models/validate (caught through its CommonJS `register`).
//
// Not checked for field names: maps of arbitrary keys (labels, annotations, ConfigMap and
// Secret data: their keys are free by definition; their values are still type-checked), and
// objects whose schema declares no properties at all (free-form, e.g. x-kubernetes-preserve-
// unknown-fields); these are listed with --verbose. A ConfigMap's embedded files are strings
// to Kubernetes: the resched config inside is not checked here.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const require = createRequire(import.meta.url);

// Capture every schema the models register (id -> JSON schema). Model classes register their
// schema and its dependencies lazily, on the first .validate(), through this export.
const validateLib = require("@kubernetes-models/validate");
const schemas = new Map();
const originalRegister = validateLib.register;
validateLib.register = (id, schema) => {
  schemas.set(id, schema);
  return originalRegister(id, schema);
};

// apiVersion -> the module of its models (CommonJS builds, so that they share the patched
// @kubernetes-models/validate above).
function modelModule(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const candidates = group === "monitoring.coreos.com"
    ? [`@kubernetes-models/prometheus-operator/${group}/${version}`]
    : [`kubernetes-models/${group ? `${group}/` : ""}${version}`];
  for (const name of candidates) {
    try {
      return require(name);
    } catch (err) {
      if (err.code !== "MODULE_NOT_FOUND" && err.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw err;
    }
  }
  return null;
}

function modelClass(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return null;
  const mod = modelModule(apiVersion);
  const cls = mod && Object.hasOwn(mod, kind) ? mod[kind] : null;
  return cls && cls.apiVersion === apiVersion && cls.kind === kind ? cls : null;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function resolve(schema) {
  let s = schema;
  for (let depth = 0; s && s.$ref; depth++) {
    const id = s.$ref.replace(/#$/, "");
    if (!schemas.has(id) || depth > 32) throw new Error(`cannot resolve schema $ref ${s.$ref}`);
    s = schemas.get(id);
  }
  return s;
}

// The alternatives a value may match: oneOf/anyOf/allOf branches, without the null ones.
function branches(schema) {
  const s = resolve(schema);
  const alts = [...(s.oneOf || []), ...(s.anyOf || []), ...(s.allOf || [])]
    .filter((b) => b && b.type !== "null");
  if (alts.length === 0) return [s];
  return alts.flatMap(branches).concat(s.properties || s.items || s.additionalProperties ? [s] : []);
}

// Walks value against schema; reports unknown fields, and notes paths it cannot check.
function walkFields(value, schema, path, report, unchecked) {
  const alts = branches(schema);
  if (Array.isArray(value)) {
    const items = alts.map((a) => a.items).filter(Boolean);
    if (items.length === 0) return;
    value.forEach((v, i) => walkFields(v, { anyOf: items }, `${path}[${i}]`, report, unchecked));
    return;
  }
  if (!isObject(value)) return;
  const objectAlts = alts.filter((a) => a.properties || a.additionalProperties !== undefined
    || a.type === "object" || a["x-kubernetes-preserve-unknown-fields"]);
  if (objectAlts.length === 0) return;  // not an object schema: .validate() reports the type
  const props = new Map();
  const extra = [];
  let free = false;
  for (const a of objectAlts) {
    for (const [k, v] of Object.entries(a.properties || {})) {
      props.set(k, [...(props.get(k) || []), v]);
    }
    if (isObject(a.additionalProperties)) extra.push(a.additionalProperties);
    else if (a.additionalProperties === true || a["x-kubernetes-preserve-unknown-fields"]
      || (!a.properties && a.additionalProperties === undefined)) free = true;
  }
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (props.has(key)) {
      walkFields(v, { anyOf: props.get(key) }, at, report, unchecked);
    } else if (extra.length > 0) {
      walkFields(v, { anyOf: extra }, at, report, unchecked);  // a map: keys are free
    } else if (free) {
      unchecked.add(at);
    } else {
      report(`${at}: unknown field "${key}"`);
    }
  }
}

// Checks one parsed object; returns its error messages.
export function checkObject(obj, where, unchecked = new Set()) {
  const errors = [];
  if (!isObject(obj)) return [`${where}: not a mapping`];
  const { apiVersion, kind } = obj;
  const name = obj.metadata?.name ?? "?";
  const label = `${where}: ${kind ?? "?"}/${name}`;
  const Cls = modelClass(apiVersion, kind);
  if (!Cls) return [`${label}: no model for apiVersion ${apiVersion}, kind ${kind} (unknown kind)`];
  try {
    new Cls(obj).validate();
  } catch (err) {
    const details = Array.isArray(err.errors)
      ? err.errors.map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ")
      : err.message;
    errors.push(`${label}: ${details}`);
  }
  // .validate() registered the model's schema and those it refers to.
  const id = [...schemas.keys()].find((k) => {
    const s = schemas.get(k);
    return s?.properties?.kind?.enum?.includes(kind)
      && s?.properties?.apiVersion?.enum?.includes(apiVersion);
  });
  if (!id) {
    errors.push(`${label}: no JSON schema registered for the model, fields not checked`);
    return errors;
  }
  walkFields(obj, schemas.get(id), "", (m) => errors.push(`${label}: ${m}`), unchecked);
  return errors;
}

// Parses a multi-document YAML text; returns {objects: [{obj, where}], errors}.
export function parseManifests(text, file) {
  const objects = [];
  const errors = [];
  parseAllDocuments(text, { uniqueKeys: true }).forEach((doc, i) => {
    const where = `${file}#${i + 1}`;
    for (const e of doc.errors) errors.push(`${where}: YAML: ${e.message}`);
    if (doc.errors.length) return;
    const obj = doc.toJS();
    if (obj === null || obj === undefined) return;  // an empty document
    objects.push({ obj, where });
  });
  return { objects, errors };
}

function checkTexts(inputs, verbose) {
  const errors = [];
  const unchecked = new Set();
  let count = 0;
  for (const { text, file } of inputs) {
    const seen = new Map();  // one release per file: a name is used once per kind there
    const parsed = parseManifests(text, file);
    errors.push(...parsed.errors);
    for (const { obj, where } of parsed.objects) {
      count++;
      errors.push(...checkObject(obj, where, unchecked));
      const key = `${obj?.apiVersion}/${obj?.kind}/${obj?.metadata?.namespace ?? ""}/${obj?.metadata?.name}`;
      if (seen.has(key)) errors.push(`${where}: duplicate of ${seen.get(key)} (${key})`);
      else seen.set(key, where);
    }
  }
  if (verbose && unchecked.size) {
    console.log(`validate-manifests: free-form, field names not checked: ${[...unchecked].sort().join(", ")}`);
  }
  return { count, errors };
}

const BAD = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: broken
spec:
  replicas: "one"
  serviceName: broken
  selector:
    matchLabels: {app: broken}
  template:
    metadata:
      labels: {app: broken}
    spec:
      containerz:
        - name: x
          image: x
      containers:
        - name: x
          image: x
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: nothing-knows-me
`;

const GOOD = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: fine
  labels: {any-key: any-value}
data:
  config.yaml: "listen: 127.0.0.1:1"
`;

function selfTest() {
  const failures = [];
  const good = checkTexts([{ text: GOOD, file: "self-test-good" }], false);
  if (good.errors.length) failures.push(`a valid ConfigMap was refused: ${good.errors.join("; ")}`);
  const bad = checkTexts([{ text: BAD, file: "self-test-bad" }], false);
  const expect = [
    [/unknown field "containerz"/, "the misspelled field spec.template.spec.containerz"],
    [/\.spec\.template\.spec\.containerz/, "the path of the misspelled field"],
    [/\/spec\/replicas must be integer/, "the wrong type of spec.replicas"],
    [/Widget.*unknown kind/, "the unknown kind example.com/v1 Widget"],
  ];
  for (const [re, what] of expect) {
    if (!bad.errors.some((e) => re.test(e))) failures.push(`not caught: ${what}`);
  }
  if (failures.length) {
    for (const f of failures) console.error(`validate-manifests self-test: ${f}`);
    console.error(`validate-manifests self-test: errors reported were:\n  ${bad.errors.join("\n  ")}`);
    return 1;
  }
  console.log(`validate-manifests self-test: ok (${bad.errors.length} expected errors caught)`);
  return 0;
}

function main(argv) {
  if (argv[0] === "--self-test") return selfTest();
  const verbose = argv[0] === "--verbose";
  const files = verbose ? argv.slice(1) : argv;
  if (files.length === 0) {
    console.error("usage: validate-manifests.mjs [--verbose] FILE... | --self-test");
    return 2;
  }
  const { count, errors } = checkTexts(
    files.map((file) => ({ file, text: readFileSync(file, "utf8") })), verbose);
  for (const e of errors) console.error(`validate-manifests: ${e}`);
  if (errors.length) {
    console.error(`validate-manifests: ${errors.length} error(s) in ${count} manifest(s)`);
    return 1;
  }
  if (count === 0) {
    console.error("validate-manifests: no manifest found");
    return 1;
  }
  console.log(`validate-manifests: ${count} manifest(s) valid`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
