import { ConfigError, loadConfig, tracingSettings } from '../../src/config';

/* When tracing starts and what it is told: the OTEL_* variables the service reads before the SDK does. */
describe('tracing settings', () => {
  it('are off without an OTLP endpoint, and when the SDK or its trace exporter is turned off', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('add the signal path to the general endpoint, take the traces endpoint as it is, and name the service', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'broker-flight-gateway',
    });
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://apm.example.com/otlp/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'gateway-eu' }),
    ).toEqual({ endpoint: 'https://apm.example.com/otlp/traces', protocol: 'http/json', serviceName: 'gateway-eu' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })?.endpoint).toBe('http://collector:4317');
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:secret@apm.example.com/otlp' })?.endpoint).toBe('https://apm.example.com/otlp/v1/traces');
    // A name given in the resource attributes is left to the SDK.
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=gw' })?.serviceName).toBeUndefined();
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'json' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'],
  ])('refuse %j at start-up, naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
