/* task_info.h — what a task is: its table entry, its dataset and its
 * examples (the types task.h's functions and the generators share). */
#ifndef TASK_INFO_H
#define TASK_INFO_H

#include <stdbool.h>

#include "model.h"

/* Training hyperparameters (the --train flags). */
typedef struct {
    int steps;           /* optimiser steps, --train-steps */
    int batch;           /* examples per step, --batch */
    double lr;           /* AdamW learning rate, --lr */
    double weight_decay; /* AdamW decoupled weight decay, --weight-decay */
    uint32_t seed;       /* initial weights and example order, --seed */
} task_train_opts;

/* One target row of an example: both answers, so either objective can train. */
typedef struct {
    int row; /* the position whose answer this is */
    int pos; /* the pointer answer: a position of the sentence */
    int tok; /* the token answer: a vocabulary index */
} task_target;

typedef struct {
    int n;            /* tokens */
    int first_id;     /* its first token in task_dataset.ids */
    int first_target; /* its first target in task_dataset.targets */
    int n_targets;    /* target rows */
    int text;         /* offset of its sentence in task_dataset.text */
} task_example;

struct task_info;

typedef struct {
    const struct task_info *task; /* the task it was made for */
    int n_train;                  /* training examples: ex[0 … n_train) */
    int n_heldout;                /* held-out examples: ex[n_train … n_train + n_heldout) */
    task_example *ex;             /* every example (owned) */
    int *ids;                     /* every example's vocabulary indices (owned) */
    task_target *targets;         /* every example's targets (owned) */
    char *text;                   /* every example's sentence, NUL-terminated, one after another (owned) */
    int max_len;                  /* the longest example, in tokens */
} task_dataset;

typedef struct task_info {
    const char *name;                                                                   /* "referent-zh", as --train spells it */
    const char *summary;                                                                /* what it teaches, one line */
    const char *lengths;                                                                /* its sentences' lengths, for --tasks */
    const char *format;                                                                 /* an example and its target rows, for --tasks */
    const char *probe;                                                                  /* the sentence a model of it shows by default */
    int vocab_count;                                                                    /* words */
    const char *const *vocab;                                                           /* the vocabulary, in E's row order (static) */
    model_config cfg;                                                                   /* the default configuration (max_len: the dataset's) */
    task_train_opts train;                                                              /* the default training */
    double asserted_accuracy;                                                           /* the held-out accuracy its test asserts after the default training */
    bool referent;                                                                      /* a referent task: one target row, the pronoun */
    attn_status (*generate)(task_dataset *d, const struct task_info *t, attn_err *err); /* the generator */
    task_train_opts train_other;                                                        /* the default training with the other objective (steps 0: train's) */
    bool generates;                                                                     /* its token targets are the next token: a token model of it can continue a sentence (issue 24) */
} task_info;

/* Positions of a referent sentence's parts (task_roles). */
typedef struct {
    int a, b, pronoun, predicate;
} task_roles_at;

/* The sentences of the lessons that a referent task must get right (and never
 * trains on): count sentences, each with the referent it must point to. */
typedef struct {
    const char *sentence; /* UTF-8 */
    const char *pronoun;  /* 它 / it */
    const char *referent; /* 鸟 / 动物 / animal / street */
} task_lesson_sentence;

#endif
