import { Fragment } from 'react';
import { Markdown } from '../components/Markdown';
import type { CodeSpec } from './api';

/** An exam's instructions. `headingOffset`: levels added to the Markdown's headings (2 under an `h2` title). */
export function Instructions({ markdown, headingOffset }: { markdown: string; headingOffset: number }) {
  return <Markdown markdown={markdown} headingOffset={headingOffset} className="learner-instructions" />;
}

const refName = (ref: CodeSpec['starter']) => (ref === undefined ? null : typeof ref === 'string' ? ref : ref.ref);

function aiPolicyText(policy: NonNullable<CodeSpec['ai_policy']>): string {
  if (policy.allowed === false || policy.max_interactions === 0) return 'Not allowed in this exam.';
  const limit = policy.max_interactions === undefined ? '' : `, up to ${policy.max_interactions} questions`;
  return `Allowed in the coding app${limit}; each question is recorded for your teacher and paid from your merits.`;
}

/**
 * What a coding exam runs on and how its tests are run: the facts the coding app also uses.
 * `inAttempt`: shown during the attempt, where the archives are listed below the facts.
 */
export function CodingFacts({ spec, inAttempt = false }: { spec: CodeSpec; inAttempt?: boolean }) {
  const commands = Object.entries(spec.commands ?? {});
  return (
    <dl className="learner-facts" aria-label="Coding exam">
      {spec.toolchain && (
        <>
          <dt>Toolchain</dt>
          <dd>
            <code>{spec.toolchain}</code>
          </dd>
        </>
      )}
      {commands.map(([name, lines]) => (
        <Fragment key={name}>
          <dt>Command “{name}”</dt>
          <dd>
            {(Array.isArray(lines) ? lines : [lines]).map((line, index) => (
              <code key={index} className="learner-command">
                {line}
              </code>
            ))}
          </dd>
        </Fragment>
      ))}
      {refName(spec.starter) && (
        <>
          <dt>Starter files</dt>
          <dd>starter.zip: {inAttempt ? 'download it under “Files for this exam”.' : 'download it once your attempt has started.'}</dd>
        </>
      )}
      {refName(spec.sample_tests) && (
        <>
          <dt>Sample tests</dt>
          <dd>sample-tests.zip: run them before you submit.</dd>
        </>
      )}
      {spec.hidden_tests && (
        <>
          <dt>Hidden tests</dt>
          <dd>Your teacher’s own tests also check your work; they stay encrypted until the coding app unlocks them during the attempt.</dd>
        </>
      )}
      {spec.ai_policy && (
        <>
          <dt>AI help</dt>
          <dd>{aiPolicyText(spec.ai_policy)}</dd>
        </>
      )}
    </dl>
  );
}
