"""Other files of the AF104 cases' project: loops and bases that live away from the step they run."""
