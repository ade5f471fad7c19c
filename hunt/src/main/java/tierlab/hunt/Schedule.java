package tierlab.hunt;

import java.util.List;

/**
 * A generated run: configuration plus steps. After the last step the runner always drives the
 * system to quiescence (every pending completion delivered successfully, every lease released)
 * and checks the end-state properties, so a schedule is a complete, replayable experiment.
 */
public record Schedule(HuntConfig config, List<Step> steps) {
    public Schedule {
        steps = List.copyOf(steps);
    }

    public Schedule withSteps(List<Step> newSteps) {
        return new Schedule(config, newSteps);
    }

    public int length() {
        return steps.size();
    }

    @Override
    public String toString() {
        return config.level() + " " + config + " steps " + steps;
    }
}
