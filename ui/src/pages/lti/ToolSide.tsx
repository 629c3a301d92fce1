import { Alert, Card, List, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { CopyBlock, CopyValue } from './CopyFields';
import type { LtiOverview } from './lti';

type Tool = LtiOverview['tool'];

/** The addresses the LMS may send a browser back to: the launch URL, and the deep linking URL when it differs. */
const redirectUris = (tool: Tool) => [...new Set([tool.launch_url, tool.deep_linking_url])].join('\n');

/** A value the admin picks in the LMS rather than pastes: shown as its label and the choice, nothing to copy. */
function Choice({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Text size="sm">{value}</Text>
    </Stack>
  );
}

/** Moodle's "Configure a tool manually" form, field by field in Moodle's own words. */
function MoodleFields({ tool }: { tool: Tool }) {
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Site administration → Plugins → Activity modules → External tool → Manage tools → configure a tool manually. Then tick &ldquo;Supports Deep Linking
        (Content-Item Message)&rdquo;, and under Services choose &ldquo;Use this service for grade sync and column management&rdquo;.
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <CopyValue label="Tool URL" value={tool.launch_url} />
        <Choice label="LTI version" value="LTI 1.3" />
        <Choice label="Public key type" value="Keyset URL" />
        <CopyValue label="Public keyset" value={tool.jwks_url} />
        <CopyValue label="Initiate login URL" value={tool.login_url} />
        <CopyValue label="Redirection URI(s)" value={redirectUris(tool)} />
        <CopyValue label="Content Selection URL" value={tool.deep_linking_url} />
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        After saving, open the tool&apos;s &ldquo;View configuration details&rdquo;: its Platform ID, Client ID, Deployment ID, Public keyset URL, Access token
        URL and Authentication request URL go into <strong>Register an LMS</strong> below.
      </Text>
    </Stack>
  );
}

/** Canvas: the JSON to paste (Developer Keys → LTI Key → Paste JSON), or the same fields by name. */
function CanvasFields({ tool }: { tool: Tool }) {
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Admin → Developer Keys → + Developer Key → LTI Key → Method &ldquo;Paste JSON&rdquo;, save and turn the key ON; its number is the Client ID. Then
        Settings → Apps → + App → By Client ID; the app&apos;s settings show the Deployment ID.
      </Text>
      <CopyBlock label="Canvas JSON configuration" value={JSON.stringify(tool.canvas_config, null, 2)} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <CopyValue label="Target Link URI" value={tool.launch_url} />
        <CopyValue label="OpenID Connect Initiation Url" value={tool.login_url} />
        <CopyValue label="Public JWK URL" value={tool.jwks_url} />
        <CopyValue label="Redirect URIs" value={redirectUris(tool)} />
      </SimpleGrid>
    </Stack>
  );
}

/** Any other LTI 1.3 platform: the four addresses and the tool's public key in both forms. */
function OtherFields({ tool }: { tool: Tool }) {
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <CopyValue label="Login initiation URL" value={tool.login_url} />
        <CopyValue label="Launch and redirect URL" value={tool.launch_url} />
        <CopyValue label="Key set URL" value={tool.jwks_url} />
        <CopyValue label="Deep linking URL" value={tool.deep_linking_url} />
      </SimpleGrid>
      <CopyBlock label="Public key (PEM)" value={tool.public_key_pem} />
      <CopyBlock label="Public key (JWK)" value={JSON.stringify(tool.public_jwk, null, 2)} />
    </Stack>
  );
}

/**
 * LMSes are served over HTTPS, and a page on HTTPS may not frame or post to a plain http:// page
 * (mixed content): launches from such an LMS fail in the browser before they reach the appliance.
 * Said up front when the tool's addresses are http:// on anything but this computer.
 */
export function HttpsNote({ tool }: { tool: Tool }) {
  const url = new URL(tool.launch_url);
  if (url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return null;
  return (
    <Alert color="yellow" title="Your LMS will expect this tool on HTTPS">
      <Text size="sm">
        These addresses start with <code>http://</code>. An LMS served over HTTPS (Moodle and Canvas almost always are) cannot open a plain http:// tool: the
        browser blocks the launch, and Canvas refuses such addresses in a developer key.
      </Text>
      <List size="sm" mt="xs">
        <List.Item>
          Put the appliance behind your school&apos;s HTTPS (a reverse proxy with the school&apos;s certificate), then set its public address to the https://
          one (Appliance operator → Settings → Public address; see &ldquo;Behind a reverse proxy&rdquo; in the install guide).
        </List.Item>
        <List.Item>The addresses here follow the public address: register the tool in the LMS after changing it.</List.Item>
      </List>
    </Alert>
  );
}

/** The tool's side, by hand: what to paste into the LMS, in the LMS's own field names. */
export function ToolSide({ tool }: { tool: Tool }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Without Dynamic Registration, add CampusBridge to the LMS as an LTI 1.3 tool with these values. They use this appliance&apos;s public address.
        </Text>
        <Tabs defaultValue="moodle" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="moodle">Moodle</Tabs.Tab>
            <Tabs.Tab value="canvas">Canvas</Tabs.Tab>
            <Tabs.Tab value="other">Another LMS</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="moodle" pt="md">
            <MoodleFields tool={tool} />
          </Tabs.Panel>
          <Tabs.Panel value="canvas" pt="md">
            <CanvasFields tool={tool} />
          </Tabs.Panel>
          <Tabs.Panel value="other" pt="md">
            <OtherFields tool={tool} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
    </Card>
  );
}
