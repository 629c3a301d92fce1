import { Card, SimpleGrid, Stack, Text } from '@mantine/core';
import { CopyBlock, CopyValue } from './CopyFields';
import type { LtiOverview } from './lti';

/** The tool's URLs, keys and Canvas configuration, to paste into the LMS. */
export function ToolSide({ tool }: { tool: LtiOverview['tool'] }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Paste these into the LMS when you add CampusBridge as an LTI 1.3 tool (Moodle: External tool → Configure a tool manually; Canvas: Developer Keys → LTI
          Key, or paste the JSON). They use this appliance&apos;s public address (Appliance settings).
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <CopyValue label="Login initiation URL" value={tool.login_url} />
          <CopyValue label="Launch and redirect URL" value={tool.launch_url} />
          <CopyValue label="Key set URL" value={tool.jwks_url} />
          <CopyValue label="Deep linking URL" value={tool.deep_linking_url} />
        </SimpleGrid>
        <CopyBlock label="Public key (PEM)" value={tool.public_key_pem} />
        <CopyBlock label="Public key (JWK)" value={JSON.stringify(tool.public_jwk, null, 2)} />
        <CopyBlock label="Canvas JSON configuration" value={JSON.stringify(tool.canvas_config, null, 2)} />
      </Stack>
    </Card>
  );
}
