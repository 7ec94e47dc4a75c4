#!/usr/bin/env node
// Validate the structured data (JSON-LD, microdata, RDFa) of one HTML document
// against Google's rich-result rules, as @adobe/structured-data-validator does.
//
// Usage (with Node 22 from this folder first on PATH):
//   node tools/validate_structured_data.mjs page.html
//   curl -s http://127.0.0.1:5000/p/1 | node tools/validate_structured_data.mjs
//   node tools/validate_structured_data.mjs -        # explicit stdin
//
// Prints ONE JSON object to stdout:
//   {"errors": [issue...], "warnings": [issue...], "extracted": <jsonld by type>}
// where each issue is the validator's own object (rootType, dataFormat,
// location, source, issueMessage, severity, path, fieldNames, ...).
// Exit code is 0 whatever the findings; gate on `errors` being empty.
// A crash (unreadable input, missing module) exits non-zero with a message on
// stderr.
import { readFileSync } from 'node:fs';
import WebAutoExtractor from '@marbec/web-auto-extractor';
import Validator from '@adobe/structured-data-validator';

function readInput() {
  const arg = process.argv[2];
  // fd 0 reads all of stdin synchronously (works for pipes and files).
  return readFileSync(arg && arg !== '-' ? arg : 0, 'utf8');
}

const html = readInput();
const data = new WebAutoExtractor({
  addLocation: true,
  embedSource: ['rdfa', 'microdata'],
}).parse(html);

// Validator.validate() deletes '@location' from the items it visits, so keep a
// copy of what was extracted before validating.
const extracted = structuredClone(data.jsonld ?? {});

const issues = await new Validator().validate(data);
const errors = issues.filter((i) => i.severity === 'ERROR');
const warnings = issues.filter((i) => i.severity !== 'ERROR');

process.stdout.write(JSON.stringify({ errors, warnings, extracted }) + '\n');
