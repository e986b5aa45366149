/* SPDX-License-Identifier: MIT */
#ifndef TGT_LIBTGT_H
#define TGT_LIBTGT_H
int tgtlib_add(int a, int b);
int tgtlib_add_alias(int a, int b);
int tgtlib_hello(void);
#endif
