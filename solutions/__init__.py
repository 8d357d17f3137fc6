"""Solutions to the exercises at the end of each notebook. Try the exercise first."""
