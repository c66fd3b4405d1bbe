/** A ConnectorFactory that builds template connectors, with failure knobs and counters. */
import type { ConnectionDescriptor } from '../models';
import type { Connector, ConnectorFactory } from '../ports';
import { TemplateConnector } from './template-connector';
import { throwKnob, type Knob } from './harness-support';

export class MemoryConnectorFactory implements ConnectorFactory {
  readonly template: TemplateConnector;
  /** Thrown by build. */
  buildErr: Knob = undefined;
  /** build returns undefined, which the engine counts as a build failure. */
  nilConnector = false;
  buildCount = 0;
  readonly built: TemplateConnector[] = [];

  constructor(template: TemplateConnector = new TemplateConnector()) {
    this.template = template;
  }

  get lastBuilt(): TemplateConnector | undefined {
    return this.built[this.built.length - 1];
  }

  build(descriptor: ConnectionDescriptor): Connector {
    this.buildCount++;
    throwKnob(this.buildErr, () => new Error('build failed'));
    if (this.nilConnector) return undefined as unknown as Connector;
    const connector = this.template.clone(descriptor);
    this.built.push(connector);
    return connector;
  }
}
