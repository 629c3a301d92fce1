import { useInstitution } from '../../session';
import { OutboundPostsTable } from '../shared/OutboundPostsTable';
import { ltiScoresKey, type LtiScorePost } from './lti';

/** Grades sent (or to send) to the LMS gradebooks. */
export function ScorePosts() {
  const institution = useInstitution();
  return (
    <OutboundPostsTable<LtiScorePost>
      queryKey={ltiScoresKey(institution.id)}
      listPath={`/institutions/${institution.id}/lti/score-posts`}
      label="Grades sent to the LMS"
      empty="No grade has been sent to an LMS yet."
      columns={[
        { header: 'LMS user', cell: (post) => String(post.payload.userId ?? '') },
        { header: 'Score', cell: (post) => `${String(post.payload.scoreGiven ?? '')} / ${String(post.payload.scoreMaximum ?? '')}` },
      ]}
    />
  );
}
